import type { Redis } from '@smsgw/platform';
import { DAY_MS, HOUR_MS, MINUTE_MS, type Usage } from '../domain/limits';

const usageKey = (deviceId: string) => `hub-sent:${deviceId}`;

/**
 * The SMS each phone acknowledged in the last 24 hours, what its limits count: a sorted set
 * `hub-sent:<device>`, one member per message id, scored with the time of the acknowledgement
 * (ms), trimmed to 24 hours at each write and expiring a day after the last one.
 */
export class UsageStore {
  constructor(private readonly redis: Redis) {}

  /** Records one acknowledged SMS; the same message acknowledged again counts once, at its first time. */
  async record(deviceId: string, messageId: string, atMs: number): Promise<void> {
    const key = usageKey(deviceId);
    await this.redis
      .multi()
      .zadd(key, 'NX', atMs, messageId)
      .zremrangebyscore(key, '-inf', atMs - DAY_MS)
      .pexpire(key, DAY_MS + MINUTE_MS)
      .exec();
  }

  /** The times (ms, oldest first) of the SMS acknowledged after `sinceMs`. */
  async sentSince(deviceId: string, sinceMs: number): Promise<number[]> {
    const flat = await this.redis.zrangebyscore(usageKey(deviceId), `(${sinceMs}`, '+inf', 'WITHSCORES');
    const times: number[] = [];
    for (let i = 1; i < flat.length; i += 2) times.push(Number(flat[i]));
    return times;
  }

  /** Each device's counts over the last minute, hour and 24 hours, in one round trip. */
  async usage(deviceIds: string[], nowMs: number): Promise<Map<string, Usage>> {
    const out = new Map<string, Usage>();
    if (deviceIds.length === 0) return out;
    const pipeline = this.redis.pipeline();
    for (const id of deviceIds) {
      for (const windowMs of [MINUTE_MS, HOUR_MS, DAY_MS]) pipeline.zcount(usageKey(id), `(${nowMs - windowMs}`, '+inf');
    }
    const results = (await pipeline.exec()) ?? [];
    const count = (i: number) => {
      const [err, value] = results[i] ?? [null, 0];
      if (err) throw err;
      return Number(value);
    };
    deviceIds.forEach((id, i) => out.set(id, { lastMinute: count(i * 3), lastHour: count(i * 3 + 1), lastDay: count(i * 3 + 2) }));
    return out;
  }
}
