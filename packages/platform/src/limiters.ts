import { randomBytes } from 'node:crypto';
import { TickPipeline, type ChainableCommander, type Redis } from './redis';

// Every limiter is one Lua script: exact across replicas, and timed by Redis's own clock, so
// replicas with skewed clocks agree. Scripts are sent by their SHA (EVALSHA), not their text.

// A sliding log: the times of the accepted hits in the last window. A refused hit is not logged,
// so waiting for the window to pass always clears the limit.
const SLIDING_WINDOW = `
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now_ms, ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset_ms = window
if oldest[2] then reset_ms = tonumber(oldest[2]) + window - now_ms end
return {allowed, count, reset_ms}
`;

// Counts one hit in a fixed window that starts at the first hit; a key left without an expiry
// (never expected) gets one.
const WINDOW_COUNT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

// The hits counted so far and the time left in the window.
const WINDOW_READ = `
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}
`;

// Check and count in one step, on every key: when any key has no room left for the hit's weight
// nothing is counted and the hit is refused; otherwise the weight is counted on each key. So many
// hits sent at once cannot all pass before the first is counted. ARGV: the window, the limit, the
// weight (1 when absent), then a limit of each key's own (the limit when absent). A hit heavier than
// a key's whole limit passes into an empty window only (it is slowed, never refused for ever).
const WINDOW_TAKE = `
local weight = tonumber(ARGV[3] or '1')
for i = 1, #KEYS do
  local limit = tonumber(ARGV[3 + i] or ARGV[2])
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= limit or (count > 0 and count + weight > limit) then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then ttl = tonumber(ARGV[1]) end
    return {0, count, ttl, i}
  end
end
local highest, ttl_left = 0, 0
for i = 1, #KEYS do
  local count = redis.call('INCRBY', KEYS[i], weight)
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    ttl = tonumber(ARGV[1])
  end
  if count > highest then highest, ttl_left = count, ttl end
end
return {1, highest, ttl_left, 0}
`;

// Gives back a hit, without reviving a window that has ended.
const WINDOW_REFUND = `
for i = 1, #KEYS do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count > 0 then redis.call('DECR', KEYS[i]) end
end
return 0
`;

const COMMANDS = {
  smsgwSlidingWindow: { numberOfKeys: 1, lua: SLIDING_WINDOW },
  smsgwWindowCount: { numberOfKeys: 1, lua: WINDOW_COUNT },
  smsgwWindowRead: { numberOfKeys: 1, lua: WINDOW_READ },
  smsgwWindowTake: { lua: WINDOW_TAKE },
  smsgwWindowRefund: { lua: WINDOW_REFUND },
} as const;
type Command = keyof typeof COMMANDS;

/**
 * Where a limiter sends its scripts: a Redis client, or a `TickPipeline` (the requests of one turn
 * of the event loop share one round trip).
 */
export type LimiterRedis = Redis | TickPipeline;

function scripts(target: LimiterRedis) {
  const redis = target instanceof TickPipeline ? target.redis : target;
  for (const [name, definition] of Object.entries(COMMANDS)) {
    if (!(name in redis)) redis.defineCommand(name, definition);
  }
  return <T>(name: Command, ...args: (string | number)[]): Promise<T> => {
    type Scripted = Record<Command, (...a: (string | number)[]) => unknown>;
    if (target instanceof TickPipeline) return target.run<T>((p: ChainableCommander) => (p as unknown as Scripted)[name](...args));
    return (redis as unknown as Scripted)[name](...args) as Promise<T>;
  };
}

export interface SlidingWindowHit {
  allowed: boolean;
  /** Hits in the window, this one included when allowed. */
  count: number;
  /** Time until the oldest hit leaves the window (when refused: until one may come again). */
  resetMs: number;
  /** Gives the hit back (the work it stood for was not done after all). */
  release: () => Promise<void>;
}

/** At most `limit` hits in any `windowMs` per key (a sliding log in a sorted set). */
export class SlidingWindowLimiter {
  private readonly call: ReturnType<typeof scripts>;
  // Each logged hit needs a member of its own in the key's set: this replica's random name and a counter.
  private readonly replica = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(
    private readonly redis: LimiterRedis,
    private readonly options: { limit: number; windowMs: number },
  ) {
    this.call = scripts(redis);
  }

  async hit(key: string): Promise<SlidingWindowHit> {
    const member = `${this.replica}-${(this.sequence++).toString(36)}`;
    const [allowed, count, resetMs] = await this.call<[number, number, number]>(
      'smsgwSlidingWindow',
      key,
      this.options.windowMs,
      this.options.limit,
      member,
    );
    const redis = this.redis instanceof TickPipeline ? this.redis.redis : this.redis;
    return {
      allowed: allowed === 1,
      count,
      resetMs,
      release: async () => {
        await redis.zrem(key, member);
      },
    };
  }
}

export interface WindowCount {
  /** Hits in the window (by `take`: this one included when allowed). */
  count: number;
  /** Time left in the window; -2 from `read` when there is no window. */
  ttlMs: number;
}

/** Hits counted in a fixed window per key, which starts at the key's first hit. */
export class FixedWindowCounter {
  private readonly call: ReturnType<typeof scripts>;

  constructor(
    private readonly redis: LimiterRedis,
    private readonly options: { windowMs: number },
  ) {
    this.call = scripts(redis);
  }

  /** Counts one hit, unconditionally (counting before checking keeps a burst from passing). */
  async count(key: string, windowMs = this.options.windowMs): Promise<WindowCount> {
    const [count, ttlMs] = await this.call<[number, number]>('smsgwWindowCount', key, windowMs);
    return { count, ttlMs };
  }

  async read(key: string): Promise<WindowCount> {
    const [count, ttlMs] = await this.call<[number, number]>('smsgwWindowRead', key);
    return { count, ttlMs };
  }

  /**
   * Refused, counting nothing, when any key has reached its limit; otherwise one hit counted on each
   * key. `limit` is every key's, or one per key; with a `weight`, the hit counts that many (refused
   * when it does not fit, unless the key's window is empty). `refusedBy`: the index of the key that
   * refused.
   */
  async take(
    keys: string[],
    limit: number | readonly number[],
    weight = 1,
  ): Promise<WindowCount & { allowed: boolean; refusedBy?: number }> {
    const perKey = typeof limit === 'number' ? [] : limit;
    const [allowed, count, ttlMs, by] = await this.call<[number, number, number, number]>(
      'smsgwWindowTake',
      keys.length,
      ...keys,
      this.options.windowMs,
      typeof limit === 'number' ? limit : limit[0]!,
      weight,
      ...perKey,
    );
    return { allowed: allowed === 1, count, ttlMs, ...(allowed === 1 ? {} : { refusedBy: by - 1 }) };
  }

  /** Gives back one hit on each key, without reviving an ended window. */
  async refund(...keys: string[]): Promise<void> {
    await this.call('smsgwWindowRefund', keys.length, ...keys);
  }

  async reset(key: string): Promise<void> {
    const redis = this.redis instanceof TickPipeline ? this.redis.redis : this.redis;
    await redis.del(key);
  }
}
