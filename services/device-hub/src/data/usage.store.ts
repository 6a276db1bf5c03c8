import { Batches, type Redis } from '@smsgw/platform';
import { DAY_MS, HOUR_MS, MINUTE_MS, type Usage } from '../domain/limits';

/** The whole phone's sends, or (slot 1 to 8) one SIM's. Device ids hold no colon: no key clashes. */
const usageKey = (deviceId: string, slot = 0) => (slot > 0 ? `hub-sent:${deviceId}:sim${slot}` : `hub-sent:${deviceId}`);
const lastSimKey = (deviceId: string) => `hub-sent:${deviceId}:last-sim`;

// Records acknowledged SMS: for each of the ARGV[1] records, its keys (the phone's, and its SIM's
// when it has one: ARGV[2 + 3(i-1)] says how many) get the message id scored with its time, lose
// what is older than 24 hours, and expire a day after their last write.
const RECORD = `local day, keep, n = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local k, a = 1, 4
for i = 1, n do
  local count, at, id = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), ARGV[a + 2]
  for j = k, k + count - 1 do
    redis.call('zadd', KEYS[j], 'NX', at, id)
    redis.call('zremrangebyscore', KEYS[j], '-inf', at - day)
    redis.call('pexpire', KEYS[j], keep)
  end
  k, a = k + count, a + 3
end
return n`;

/** How long an acknowledgement's record may wait for the others of the moment. */
const RECORD_DELAY_MS = 10;

interface UsageRecord {
  deviceId: string;
  messageId: string;
  atMs: number;
  slot: number;
}

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
  /** The acknowledgements of a moment, every phone's, written in one script call. */
  private readonly records = new Batches<string, UsageRecord, void>((items) => this.recordAll([...items.values()]));

  constructor(private readonly redis: Redis) {}

  /**
   * Records one acknowledged SMS (and in its SIM's set when `slot` is given), with the other
   * phones' of the moment; the same message acknowledged again counts once, at its first time.
   */
  async record(deviceId: string, messageId: string, atMs: number, slot = 0): Promise<void> {
    await this.records.add(`${deviceId}:${messageId}`, { deviceId, messageId, atMs, slot }, RECORD_DELAY_MS);
  }

  private async recordAll(records: UsageRecord[]): Promise<ReadonlyMap<string, void>> {
    const keys: string[] = [];
    const args: (string | number)[] = [DAY_MS, DAY_MS + MINUTE_MS, records.length];
    for (const r of records) {
      const own = r.slot > 0 ? [usageKey(r.deviceId), usageKey(r.deviceId, r.slot)] : [usageKey(r.deviceId)];
      keys.push(...own);
      args.push(own.length, r.atMs, r.messageId);
    }
    await this.redis.eval(RECORD, keys.length, ...keys, ...args);
    return new Map();
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
