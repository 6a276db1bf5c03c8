/**
 * When a request is tried again. Two kinds of request:
 *
 * - `safe`: doing it twice cannot do anything twice. Reads, cancelling (a cancelled message stays
 *   cancelled), and the four sends, which always carry an Idempotency-Key that every retry reuses.
 *   They are retried after a network error or a timeout (the answer was lost), a 429 and a 503.
 * - `once`: verify-otp. A second attempt whose first one reached the gateway would count as a
 *   second try of the code, so it is retried only when the gateway cannot have seen the first one:
 *   a connection that never opened, or a 429 (refused before anything was counted).
 *
 * Nothing else is retried: other 4xx and 5xx answers are final. The one exception is 409
 * IDEMPOTENCY_IN_PROGRESS, which a send gets when its own earlier attempt (whose answer was lost)
 * is still running at the gateway: waiting for it is how that attempt's answer is obtained.
 */
export type RetryPolicy = 'safe' | 'once';

export type Outcome =
  /** No answer; `connected` is false when the connection never opened (the gateway saw nothing). */
  { kind: 'network'; connected: boolean } | { kind: 'answer'; status: number; code?: string; retryAfterMs?: number };

export interface BackoffSettings {
  /** First delay's upper bound; each retry doubles it. */
  baseMs: number;
  /** No delay is longer than this, Retry-After aside. */
  capMs: number;
  /** A Retry-After longer than this is not waited for: the error is thrown with its retryAfter. */
  maxRetryAfterMs: number;
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 500, capMs: 8_000, maxRetryAfterMs: 60_000, random: Math.random };

/**
 * The delay before retry number `retry` (0 for the first retry), or undefined when the outcome is
 * final. Exponential backoff with full jitter (a uniform delay between 0 and the bound), so that
 * many clients refused at once do not come back at once; an answer's Retry-After wins.
 */
export function retryDelay(
  outcome: Outcome,
  retry: number,
  policy: RetryPolicy,
  settings: BackoffSettings = DEFAULT_BACKOFF,
): number | undefined {
  const backoff = () => Math.floor(settings.random() * Math.min(settings.capMs, settings.baseMs * 2 ** retry));
  if (outcome.kind === 'network') return policy === 'safe' || !outcome.connected ? backoff() : undefined;
  const retryable =
    outcome.status === 429 ||
    (policy === 'safe' && outcome.status === 503) ||
    (policy === 'safe' && outcome.status === 409 && outcome.code === 'IDEMPOTENCY_IN_PROGRESS');
  if (!retryable) return undefined;
  if (outcome.retryAfterMs === undefined) return backoff();
  return outcome.retryAfterMs > settings.maxRetryAfterMs ? undefined : outcome.retryAfterMs;
}

/** Retry-After in milliseconds: seconds, or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
