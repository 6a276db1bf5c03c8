import type { Redis } from '@smsgw/platform';
import { DAY_MS, HOUR_MS, MINUTE_MS, type Usage } from '../domain/limits';

/** The whole phone's sends, or (slot 1 to 8) one SIM's. Device ids hold no colon: no key clashes. */
const usageKey = (deviceId: string, slot = 0) => (slot > 0 ? `hub-sent:${deviceId}:sim${slot}` : `hub-sent:${deviceId}`);
const lastSimKey = (deviceId: string) => `hub-sent:${deviceId}:last-sim`;

/** The counts of one phone (slot 0) or one of its SIMs. */
export interface UsageKey {
  deviceId: string;
  slot?: number;
}

/**
 * The SMS each phone acknowledged in the last 24 hours, what its limits count: a sorted set
 * `hub-sent:<device>`, one member per message id, scored with the time of the acknowledgement
 * (ms), trimmed to 24 hours at each write and expiring a day after the last one. An SMS sent
 * through a chosen SIM is also in `hub-sent:<device>:sim<slot>` (a phone with several SIMs has
 * its limits per SIM). `hub-sent:<device>:last-sim` is the slot its last SMS was handed through
 * (the round robin's state, so that it survives a reconnect to another replica).
 */
export class UsageStore {
  constructor(private readonly redis: Redis) {}

  /**
   * Records one acknowledged SMS (and in its SIM's set when `slot` is given); the same message
   * acknowledged again counts once, at its first time.
   */
  async record(deviceId: string, messageId: string, atMs: number, slot = 0): Promise<void> {
    const multi = this.redis.multi();
    for (const key of slot > 0 ? [usageKey(deviceId), usageKey(deviceId, slot)] : [usageKey(deviceId)]) {
      multi
        .zadd(key, 'NX', atMs, messageId)
        .zremrangebyscore(key, '-inf', atMs - DAY_MS)
        .pexpire(key, DAY_MS + MINUTE_MS);
    }
    await multi.exec();
  }

  /** The times (ms, oldest first) of the SMS acknowledged after `sinceMs` by the phone, or through its SIM `slot`. */
  async sentSince(deviceId: string, sinceMs: number, slot = 0): Promise<number[]> {
    const flat = await this.redis.zrangebyscore(usageKey(deviceId, slot), `(${sinceMs}`, '+inf', 'WITHSCORES');
    const times: number[] = [];
    for (let i = 1; i < flat.length; i += 2) times.push(Number(flat[i]));
    return times;
  }

  /** The slot the phone's last SMS was handed through (0: none known). */
  async lastSim(deviceId: string): Promise<number> {
    return Number((await this.redis.get(lastSimKey(deviceId))) ?? 0) || 0;
  }

  async setLastSim(deviceId: string, slot: number): Promise<void> {
    await this.redis.set(lastSimKey(deviceId), String(slot), 'PX', DAY_MS);
  }

  /** The counts over the last minute, hour and 24 hours of each phone or SIM, in the order given, in one round trip. */
  async counts(keys: UsageKey[], nowMs: number): Promise<Usage[]> {
    if (keys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const { deviceId, slot } of keys) {
      for (const windowMs of [MINUTE_MS, HOUR_MS, DAY_MS]) pipeline.zcount(usageKey(deviceId, slot), `(${nowMs - windowMs}`, '+inf');
    }
    const results = (await pipeline.exec()) ?? [];
    const count = (i: number) => {
      const [err, value] = results[i] ?? [null, 0];
      if (err) throw err;
      return Number(value);
    };
    return keys.map((_, i) => ({ lastMinute: count(i * 3), lastHour: count(i * 3 + 1), lastDay: count(i * 3 + 2) }));
  }
}
