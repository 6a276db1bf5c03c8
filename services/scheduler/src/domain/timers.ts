import { AppError, type ErrorDetail } from '@smsgw/platform';

export const MAX_KEY_LENGTH = 200;
export const MAX_PAYLOAD_BYTES = 64 * 1024;
/** A concrete subject: tokens of letters, digits, `_` and `-`, no wildcards. */
const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export type TimerState = 'pending' | 'fired' | 'cancelled';
export type CancelOutcome = 'cancelled' | 'fired' | 'firing' | 'not_found';

export interface TimerRequest {
  key: string;
  fireAt: Date;
  subject: string;
  payload: Buffer;
}

/**
 * Checks a CreateTimer request. `subjectRoot` is the platform's `timers.`
 * prefix (with the deployment's NATS prefix): the timers stream holds only
 * those subjects, so a timer anywhere else could never be published.
 */
export function parseTimerRequest(
  req: { key: string; fireAt: string; subject: string; payload: Buffer },
  subjectRoot: string,
): TimerRequest {
  const details: ErrorDetail[] = [];
  if (!req.key || req.key.length > MAX_KEY_LENGTH) details.push({ field: 'key', code: 'VALIDATION_ERROR' });
  const fireAt = ISO_8601.test(req.fireAt) ? new Date(req.fireAt) : new Date(Number.NaN);
  if (Number.isNaN(fireAt.getTime())) details.push({ field: 'fire_at', code: 'VALIDATION_ERROR' });
  if (!SUBJECT.test(req.subject) || !req.subject.startsWith(subjectRoot) || req.subject.length === subjectRoot.length) {
    details.push({ field: 'subject', code: 'VALIDATION_ERROR' });
  }
  if (req.payload.length > MAX_PAYLOAD_BYTES) details.push({ field: 'payload', code: 'VALIDATION_ERROR' });
  if (details.length > 0) {
    throw new AppError('VALIDATION_ERROR', {
      message: `Minuteur invalide : ${details.map((d) => d.field).join(', ')} (clé de 1 à ${MAX_KEY_LENGTH} caractères, date ISO 8601, sujet sous ${subjectRoot}, contenu de 64 Kio au plus).`,
      details,
    });
  }
  return { key: req.key, fireAt, subject: req.subject, payload: req.payload };
}

/** The `Nats-Msg-Id` of a fire: the same for every attempt of one timer, so JetStream keeps one. */
export const fireMessageId = (key: string, fireAt: Date) => `${key}:${fireAt.toISOString()}`;

/**
 * How long to sleep before looking for due timers again: until the next one
 * is due (`nextDueInMs`, measured by the database's clock, null when none is
 * pending), but never longer than `maxSleepMs`, the safety net that also
 * catches timers created while a wake-up hint was lost.
 */
export function sleepMs(nextDueInMs: number | null, maxSleepMs: number): number {
  if (nextDueInMs === null) return maxSleepMs;
  // setTimeout may fire up to a millisecond early; the claim would then find nothing and sleep again.
  return Math.min(maxSleepMs, Math.max(0, Math.ceil(nextDueInMs) + 1));
}
