import { AppError, FAILURE_MESSAGES } from '@smsgw/platform';
import type { EarlierAttempt, MessageRow } from './message-row';

/** Why the hub takes a phone's messages off it. */
export type ReleaseReason = 'OFFLINE' | 'REMOVED' | 'QUARANTINED';

/** The code and French sentence of the `moved` attempt a release records. */
export const RELEASE_ATTEMPTS = {
  OFFLINE: { code: 'DEVICE_OFFLINE', message: 'Le téléphone est resté hors ligne : le message a été confié à un autre téléphone.' },
  REMOVED: { code: 'DEVICE_REMOVED', message: FAILURE_MESSAGES.DEVICE_REMOVED },
  QUARANTINED: {
    code: 'SIM_QUARANTINED',
    message: 'Les SIM du téléphone sont en quarantaine : le message a été confié à un autre téléphone.',
  },
} as const;

/** The release reason of the proto enum (its name or its number); anything else is refused. */
export function releaseReason(reason: string | number): ReleaseReason {
  if (reason === 'RELEASE_REASON_OFFLINE' || reason === 1) return 'OFFLINE';
  if (reason === 'RELEASE_REASON_REMOVED' || reason === 2) return 'REMOVED';
  if (reason === 'RELEASE_REASON_QUARANTINED' || reason === 3) return 'QUARANTINED';
  throw new AppError('VALIDATION_ERROR', {
    message: 'reason doit être RELEASE_REASON_OFFLINE, RELEASE_REASON_REMOVED ou RELEASE_REASON_QUARANTINED.',
    details: [{ field: 'reason', code: 'VALIDATION_ERROR' }],
  });
}

/** A ttl as the gateway passes it: whole seconds, 0 for none. */
export function ttlOf(seconds: number | undefined, field: string): number {
  const ttl = seconds ?? 0;
  if (!Number.isInteger(ttl) || ttl < 0) throw new AppError('VALIDATION_ERROR', { details: [{ field, code: 'VALIDATION_ERROR' }] });
  return ttl;
}

/** One try of a message on a phone, as Message.attempts shows it. */
export interface AttemptView {
  deviceId: string;
  status: string;
  errorCode: string;
  errorMessage: string;
  at: string;
  /** The SIM slot of that try; 0: unknown. */
  sim: number;
  /** What a phone's digest repaired on that try (protocol 7); empty: nothing. */
  reconciled: string;
}

type AttemptSource = Pick<
  MessageRow,
  | 'device_id'
  | 'status'
  | 'error_code'
  | 'error_message'
  | 'attempts'
  | 'queued_at'
  | 'accepted_at'
  | 'sent_at'
  | 'delivered_at'
  | 'failed_at'
  | 'cancelled_at'
  | 'sim'
  | 'repairs'
>;

const rfc3339 = (at: string) => {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toISOString();
};

/**
 * The tries of a message: the earlier ones, oldest first, then the current
 * one (its device and status, at the time of that status). A message queued
 * again after an earlier try became queued when that try ended.
 */
export function attemptsOf(row: AttemptSource): AttemptView[] {
  const earlier: AttemptView[] = (row.attempts ?? []).map((a: EarlierAttempt) => ({
    deviceId: a.device_id,
    status: a.status,
    errorCode: a.error_code ?? '',
    errorMessage: a.error_message ?? '',
    at: rfc3339(a.at),
    sim: typeof a.sim === 'number' ? a.sim : 0,
    reconciled: typeof a.repair === 'string' ? a.repair : '',
  }));
  const last = earlier.length > 0 ? new Date(earlier[earlier.length - 1]!.at) : undefined;
  const queuedAgain = last && !Number.isNaN(last.getTime()) && last > row.queued_at ? last : row.queued_at;
  const byStatus: Record<MessageRow['status'], Date | null> = {
    queued: row.accepted_at ?? queuedAgain,
    sent: row.sent_at,
    delivered: row.delivered_at,
    failed: row.failed_at,
    cancelled: row.cancelled_at,
  };
  const current: AttemptView = {
    deviceId: row.device_id,
    status: row.status,
    errorCode: row.error_code ?? '',
    errorMessage: row.error_message ?? '',
    at: (byStatus[row.status] ?? row.queued_at).toISOString(),
    sim: row.sim,
    // The last repair a digest of its current phone made, if any (a requeue shows on the earlier try).
    reconciled: (row.repairs ?? []).filter((r) => r.device_id === row.device_id && r.kind !== 'requeued').at(-1)?.kind ?? '',
  };
  return [...earlier, current];
}
