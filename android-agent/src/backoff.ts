/** Reconnection backoff of PROTOCOL.md §3: exponential, with full jitter. */

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_CAP_MS = 60_000;
/** A connection that stays up this long resets the attempt counter. */
export const STABLE_CONNECTION_MS = 10_000;

/**
 * Delay before reconnection attempt `attempt` (0 for the first retry): a random time between 0
 * and min(cap, base * 2^attempt). Full jitter spreads the phones of a restarted hub over the
 * whole window instead of bunching them at its end.
 */
export function nextDelay(attempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt));
  // 2^6 * 1 s already exceeds the cap; clamping the exponent keeps the power finite for any count.
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(exponent, 30));
  return Math.floor(random() * ceiling);
}
