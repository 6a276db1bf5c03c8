import { randomBytes } from 'node:crypto';
import type { Redis } from '@smsgw/platform';

// Drops the expired sessions, then takes (or renews) one if the client has room. Redis's clock:
// every replica counts the same.
const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

export interface ListenerSlot {
  /** Keeps the slot (each keepalive); false when it was lost (expired meanwhile and taken). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * The open listeners of each client, across every gateway replica: a sorted set `listen:<client>`
 * of sessions and when each lapses. An open stream renews its slot at every keepalive; the slot
 * of a replica that died lapses after `leaseMs`.
 */
export class ListenerSlots {
  constructor(
    private readonly redis: Redis,
    private readonly options: { max: number; leaseMs: number },
  ) {}

  /** A slot for a new listener of `clientId`, or undefined when the client has `max` open. */
  async take(clientId: string): Promise<ListenerSlot | undefined> {
    const key = `listen:${clientId}`;
    const session = randomBytes(9).toString('base64url');
    const take = async () => (await this.redis.eval(TAKE, 1, key, session, this.options.max, this.options.leaseMs)) === 1;
    if (!(await take())) return undefined;
    return {
      renew: take,
      release: async () => {
        await this.redis.zrem(key, session);
      },
    };
  }
}
