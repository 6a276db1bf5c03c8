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
 * secret for messages sent with their own `webhook_url`. A batched endpoint's deliveries are
 * arrays: check them with `verifyWebhookBatch`.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  signature: string | string[] | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  if (!secret) throw new TypeError('verifyWebhook: the secret is empty');
  const event = parseSignedBody(rawBody, signature, secret);
  if (!event || typeof event !== 'object') throw new WebhookPayloadError('the body is not a JSON object');
  const verified = checkEvent(event as Record<string, unknown>, 'the event', options);
  if (options.seen && !(await options.seen.add(verified.event_id))) throw new WebhookDuplicateError(verified);
  return verified;
}

/**
 * Checks a delivery to a batched endpoint (docs/api/webhooks.md, "Batched endpoints") and returns
 * its events that `seen` had not seen before, in the body's order; throws otherwise:
 *
 * - WebhookSignatureError: the signature does not match the whole raw body. Answer 401.
 * - WebhookPayloadError: the body is not an array of events (or is an empty array). Answer 400.
 * - WebhookTimestampError: an event was signed more than `toleranceSeconds` away. Answer 400.
 *
 * Each event is checked as `verifyWebhook` checks one, and any failure refuses the whole batch,
 * which then records nothing in `seen`. Duplicates do not: an event whose event_id `seen` has
 * already (an id twice in the body, from its second time) is left out of the result, so a batch
 * of duplicates gives an empty array; without `seen` every event is returned. Answer 2xx to
 * every batch that verifies: the answer is for all its events. A body that is one event (not an
 * array) gives an array of it, so a receiver keeps working while its endpoint's batching is
 * switched on or off. X-Webhook-Batch-Size is not signed, and not needed: the body has the events.
 *
 * The events are recorded in `seen` one by one once the whole batch has verified: if the store
 * fails part way through, the error is thrown and the ids recorded before it stay recorded.
 */
export async function verifyWebhookBatch(
  rawBody: string | Uint8Array,
  signature: string | string[] | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent[]> {
  if (!secret) throw new TypeError('verifyWebhookBatch: the secret is empty');
  const body = parseSignedBody(rawBody, signature, secret);
  const elements = Array.isArray(body) ? body : [body];
  if (elements.length === 0) throw new WebhookPayloadError('the batch is empty');
  const events = elements.map((element, i) => {
    const name = `event ${i} of the batch`;
    if (!element || typeof element !== 'object' || Array.isArray(element)) throw new WebhookPayloadError(`${name} is not a JSON object`);
    return checkEvent(element as Record<string, unknown>, name, options);
  });
  if (!options.seen) return events;
  const fresh: WebhookEvent[] = [];
  for (const event of events) if (await options.seen.add(event.event_id)) fresh.push(event);
  return fresh;
}

/** The body parsed, once its signature matches (compared in constant time). */
function parseSignedBody(rawBody: string | Uint8Array, signature: string | string[] | undefined, secret: string): unknown {
  const raw = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const header = Array.isArray(signature) ? signature[0] : signature;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = /^[0-9a-fA-F]+$/.test(header ?? '') ? Buffer.from(header!, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new WebhookSignatureError();
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('the body is not JSON');
  }
}

/** An envelope's event_id, event and timestamp present, and the timestamp within the tolerance. */
function checkEvent(event: Record<string, unknown>, name: string, options: VerifyWebhookOptions): WebhookEvent {
  const { event_id: eventId, timestamp, event: kind } = event;
  if (typeof eventId !== 'string' || !eventId) throw new WebhookPayloadError(`${name} has no event_id`);
  if (typeof kind !== 'string' || !kind) throw new WebhookPayloadError(`${name} has no event`);
  if (typeof timestamp !== 'string') throw new WebhookPayloadError(`${name} has no timestamp`);

  const signedAt = Date.parse(timestamp);
  const toleranceMs = (options.toleranceSeconds ?? 300) * 1000;
  const now = (options.now ?? Date.now)();
  if (Number.isNaN(signedAt) || Math.abs(now - signedAt) > toleranceMs) throw new WebhookTimestampError(timestamp);
  return event as unknown as WebhookEvent;
}
