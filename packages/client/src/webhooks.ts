import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookDuplicateError, WebhookPayloadError, WebhookSignatureError, WebhookTimestampError } from './errors';
import type { WebhookEvent } from './webhook-events';

/**
 * Remembers the event ids already handled. `add` answers true the first time it sees an id and
 * false afterwards, in one step (with Redis: `SET key 1 NX EX 86400`), so that two copies of an
 * event arriving at once are not both handled.
 */
export interface SeenEvents {
  add(eventId: string): boolean | Promise<boolean>;
}

/** Event ids in memory, each forgotten after `ttlMs` (a day: the platform retries for minutes). */
export class MemorySeenEvents implements SeenEvents {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 24 * 3600 * 1000,
    private readonly maxSize = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  add(eventId: string): boolean {
    const now = this.now();
    // Map keeps insertion order: the oldest ids come first.
    for (const [id, at] of this.seen) {
      if (now - at <= this.ttlMs && this.seen.size < this.maxSize) break;
      this.seen.delete(id);
    }
    if (this.seen.has(eventId)) return false;
    this.seen.set(eventId, now);
    return true;
  }
}

export interface VerifyWebhookOptions {
  /** Refuse a delivery signed more than this many seconds away from now (default 300). */
  toleranceSeconds?: number;
  /** Where handled event ids are remembered; without it duplicates are not detected. */
  seen?: SeenEvents;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

/** The X-Webhook-Signature of `rawBody` under `secret`: hex HMAC-SHA256 (to test a receiver). */
export function signWebhook(rawBody: string | Uint8Array, secret: string): string {
  return createHmac('sha256', secret)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/**
 * Checks a webhook delivery and returns its event; throws a WebhookVerificationError otherwise:
 *
 * - WebhookSignatureError: X-Webhook-Signature is not the HMAC-SHA256 of these exact bytes under
 *   the secret (compared in constant time). Answer 401.
 * - WebhookPayloadError: the signed body is not an event. Answer 400.
 * - WebhookTimestampError: the delivery was signed more than `toleranceSeconds` ago (or ahead).
 *   Answer 400.
 * - WebhookDuplicateError: `seen` has this event_id already; delivery is at least once. Answer
 *   200 so that it is not retried, and do not handle it again.
 *
 * Pass the raw body as received, before any JSON parsing: a body parsed and serialised again is
 * not the one that was signed. `secret` is the endpoint's `whsec_…`, or the client's signing
 * secret for messages sent with their own `webhook_url`.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signature: string | string[] | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (!secret) throw new TypeError('verifyWebhook: the secret is empty');
  const raw = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const header = Array.isArray(signature) ? signature[0] : signature;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = /^[0-9a-fA-F]+$/.test(header ?? '') ? Buffer.from(header!, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new WebhookSignatureError();

  let event: unknown;
  try {
    event = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('the body is not JSON');
  }
  if (!event || typeof event !== 'object') throw new WebhookPayloadError('the body is not a JSON object');
  const { event_id: eventId, timestamp, event: kind } = event as Record<string, unknown>;
  if (typeof eventId !== 'string' || !eventId) throw new WebhookPayloadError('the event has no event_id');
  if (typeof kind !== 'string' || !kind) throw new WebhookPayloadError('the event has no event');
  if (typeof timestamp !== 'string') throw new WebhookPayloadError('the event has no timestamp');

  const signedAt = Date.parse(timestamp);
  const toleranceMs = (options.toleranceSeconds ?? 300) * 1000;
  const now = (options.now ?? Date.now)();
  if (Number.isNaN(signedAt) || Math.abs(now - signedAt) > toleranceMs) throw new WebhookTimestampError(timestamp);

  const verified = event as WebhookEvent;
  if (options.seen && !(await options.seen.add(eventId))) throw new WebhookDuplicateError(verified);
  return verified;
}
