import { FixedWindowCounter, type Redis } from '@smsgw/platform';

export interface AttemptCount {
  /** Attempts in the window, this one included. */
  count: number;
  /** Time left in the window. */
  retryAfterMs: number;
}

/**
 * Pairing attempts in Redis: per client address (`pairing:address:<address>`) and per target, a
 * pairing code (`pairing:code:<lookup>`) or a device password (`pairing:password:<client>:<lookup>`).
 * Each attempt is counted before it is checked, in a window that starts at the first (one script:
 * exact across hub replicas), so that many attempts sent at once cannot all pass before the first
 * failure is recorded.
 */
export class PairingAttemptStore {
  private readonly counter: FixedWindowCounter;

  constructor(redis: Redis) {
    // Every caller gives its own window.
    this.counter = new FixedWindowCounter(redis, { windowMs: 60_000 });
  }

  async count(key: string, windowMs: number): Promise<AttemptCount> {
    const { count, ttlMs } = await this.counter.count(`pairing:${key}`, windowMs);
    return { count, retryAfterMs: ttlMs };
  }

  /** Gives back an attempt that turned out right, without reviving a window that has ended. */
  async refund(key: string): Promise<void> {
    await this.counter.refund(`pairing:${key}`);
  }

  async reset(key: string): Promise<void> {
    await this.counter.reset(`pairing:${key}`);
  }
}
