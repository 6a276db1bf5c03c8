import { SlidingWindowLimiter, type Redis } from '@smsgw/platform';
import type { Taken } from './rate-limit.store';

/**
 * At most `limit` OTPs in any window for one end-user key of a client (send-otp's `end_user_key`):
 * a sliding log in Redis per keyed hash of the key, exact across otp replicas. Each client may set
 * its own limit and window, so there is one limiter per pair in use.
 */
export class EndUserLimit {
  private readonly limiters = new Map<string, SlidingWindowLimiter>();

  constructor(private readonly redis: Redis) {}

  /** `userKey` is a keyed hash of the caller's key: no IP address or account id is written to Redis. */
  async take(clientId: string, mode: string, userKey: string, options: { limit: number; windowMs: number }): Promise<Taken> {
    const id = `${options.limit}/${options.windowMs}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new SlidingWindowLimiter(this.redis, options);
      this.limiters.set(id, limiter);
    }
    const hit = await limiter.hit(`otp-user:${clientId}:${mode}:${userKey}`);
    return { allowed: hit.allowed, retryAfterSeconds: Math.max(1, Math.ceil(hit.resetMs / 1000)), release: hit.release };
  }
}
