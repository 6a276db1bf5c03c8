import type { Redis } from '@smsgw/platform';

/**
 * Counts one attempt under `key` in a fixed window of `windowMs` started by the
 * first: the count so far, this one included. The counter the sign-in throttle
 * keeps, counted before the attempt is made so that concurrent attempts each
 * see their own number.
 */
export async function countAttempt(redis: Redis, key: string, windowMs: number): Promise<number> {
  const n = await redis.incr(key);
  if (n === 1) await redis.pexpire(key, windowMs);
  return n;
}
