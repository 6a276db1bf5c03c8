import { AppError, keyUsageKey, msToNextUtcDay, utcDay, type ChainableCommander, type Logger, type TickPipeline } from '@smsgw/platform';

// Adds a send's SMS to its key's count of the day, unless the key has a quota (ARGV[2] > 0) the
// send does not fit in: then nothing is counted. The day's key outlives the day (the dashboard
// shows today's count, whatever its own clock says), then goes.
const TAKE = `
local n = tonumber(ARGV[1])
local quota = tonumber(ARGV[2])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if quota > 0 and used + n > quota then return {0, used} end
used = redis.call('INCRBY', KEYS[1], n)
if used == n then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return {1, used}
`;

// Gives a count back (the send was refused after all), without making a key that has gone.
const GIVE_BACK = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECRBY', KEYS[1], ARGV[1]) end
return 0
`;

const KEEP_SECONDS = 2 * 24 * 3600;

type Scripted = ChainableCommander & {
  smsgwKeyUsageTake(key: string, n: number, quota: number, keepSeconds: number): ChainableCommander;
  smsgwKeyUsageGiveBack(key: string, n: number): ChainableCommander;
};

/** A send's SMS against its key's day: `stored` once they are (or may be), `giveBack` when they were not. */
export interface UsageTaken {
  stored(): void;
  giveBack(): Promise<void>;
}

/**
 * Each key's SMS of each UTC day, in Redis (`key-usage:<key_id>:<day>`), so every gateway replica
 * counts the same: one script per send, in the pipeline round trip of its turn of the event loop.
 * A key with a daily quota is refused QUOTA_EXCEEDED (Retry-After: the next UTC midnight) when a
 * send does not fit in what is left of its day; a bulk send counts each of its messages, and fits
 * whole or not at all. `clock` says what day it is (tests move it).
 */
export class KeyUsageStore {
  constructor(
    private readonly pipeline: TickPipeline,
    private readonly clock: () => number = Date.now,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {
    const redis = pipeline.redis;
    if (!('smsgwKeyUsageTake' in redis)) redis.defineCommand('smsgwKeyUsageTake', { numberOfKeys: 1, lua: TAKE });
    if (!('smsgwKeyUsageGiveBack' in redis)) redis.defineCommand('smsgwKeyUsageGiveBack', { numberOfKeys: 1, lua: GIVE_BACK });
  }

  async take(key: { keyId: string; dailyQuota: number }, messages: number): Promise<UsageTaken> {
    const now = this.clock();
    const day = keyUsageKey(key.keyId, utcDay(new Date(now)));
    const [taken] = await this.pipeline.run<[number, number]>((p) =>
      (p as Scripted).smsgwKeyUsageTake(day, messages, key.dailyQuota, KEEP_SECONDS),
    );
    if (taken !== 1) throw new AppError('QUOTA_EXCEEDED', { retryAfterSeconds: Math.max(1, Math.ceil(msToNextUtcDay(now) / 1000)) });
    return {
      stored: () => undefined,
      giveBack: async () => {
        await this.pipeline.run((p) => (p as Scripted).smsgwKeyUsageGiveBack(day, messages));
      },
    };
  }

  /**
   * For a key without a quota: nothing is taken now; `stored` counts the SMS without waiting (the
   * count leaves with the next turn's commands). A count that Redis fails is logged and lost: the
   * day's figure the dashboard shows then misses it, and nothing was refused on it.
   */
  countOnceStored(key: { keyId: string }, messages: number): UsageTaken {
    return {
      stored: () => {
        const day = keyUsageKey(key.keyId, utcDay(new Date(this.clock())));
        this.pipeline
          .run((p) => (p as Scripted).smsgwKeyUsageTake(day, messages, 0, KEEP_SECONDS))
          .catch((err: unknown) => this.log?.warn({ err, key_id: key.keyId, messages }, "a key's SMS of the day were not counted"));
      },
      giveBack: async () => undefined,
    };
  }

}
