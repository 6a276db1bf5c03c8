import type { Redis } from '@smsgw/platform';

// Counts one attempt in a window that starts at the first attempt (Redis's clock, one script: exact
// across hub replicas). The attempt is counted before it is checked, so that many attempts sent at
// once cannot all pass before the first failure is recorded.
const COUNT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

// Gives back an attempt that turned out right, without reviving a window that has ended.
const REFUND = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

export interface AttemptCount {
  /** Attempts in the window, this one included. */
  count: number;
  /** Time left in the window. */
  retryAfterMs: number;
}

/**
 * Pairing attempts in Redis: per client address (`pairing:address:<address>`) and per target, a
 * pairing code (`pairing:code:<lookup>`) or a device password (`pairing:password:<client>:<lookup>`).
 */
export class PairingAttemptStore {
  constructor(private readonly redis: Redis) {}

  async count(key: string, windowMs: number): Promise<AttemptCount> {
    const [count, ttl] = (await this.redis.eval(COUNT, 1, `pairing:${key}`, windowMs)) as [number, number];
    return { count, retryAfterMs: ttl };
  }

  async refund(key: string): Promise<void> {
    await this.redis.eval(REFUND, 1, `pairing:${key}`);
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(`pairing:${key}`);
  }
}
