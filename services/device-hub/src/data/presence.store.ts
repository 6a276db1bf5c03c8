import { Batches, presenceKey, removedDeviceKey, type Redis } from '@smsgw/platform';

// Deletes the key, and the device from its client's online set, only if it still names this
// connection, so that a closing connection never erases the presence of the one that replaced it.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('srem', KEYS[2], ARGV[2])
  return redis.call('del', KEYS[1])
end
return 0`;

// Up to ARGV[1] distinct members of the client's online set (KEYS[1]) whose presence key still
// exists (KEYS[2] is the presence keys' common start, passed as a key so that it gets the key prefix); the others (a phone whose pongs stopped, a hub that crashed)
// leave the set in the same step, so that a phone coming back meanwhile is never dropped from it.
const SAMPLE = `local out = {}
for _, id in ipairs(redis.call('srandmember', KEYS[1], tonumber(ARGV[1]))) do
  if redis.call('exists', KEYS[2] .. id) == 1 then out[#out + 1] = id else redis.call('srem', KEYS[1], id) end
end
return out`;

/** How long the "last online" time and the removal mark of a device are kept. */
const KEEP_MS = 30 * 24 * 3600_000;
const lastOnlineKey = (deviceId: string) => `presence-last:${deviceId}`;
/** The devices gone offline (or removed), scored with when (ms): what the failover sweep looks at first. */
const OFFLINE_KEY = 'presence-offline:all';
const clientOnlineKey = (clientId: string) => `presence-client:${clientId}`;

// Marks phones online: KEYS are presence:<d> and presence-last:<d> for each of the ARGV[4] phones,
// then presence-offline, then presence-client:<c> for each client; ARGV: TTL, how long "last
// online" is kept, now, the number of phones, their connection ids, then for each client its
// number of phones and their ids. A phone marked online leaves the offline set.
const MARK = `local ttl, keep, now, n = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
for i = 1, n do
  redis.call('set', KEYS[2 * i - 1], ARGV[4 + i], 'PX', ttl)
  redis.call('set', KEYS[2 * i], now, 'PX', keep)
end
local a = 5 + n
for k = 2 * n + 2, #KEYS do
  local count = tonumber(ARGV[a])
  for j = a + 1, a + count do
    redis.call('sadd', KEYS[k], ARGV[j])
    redis.call('zrem', KEYS[2 * n + 1], ARGV[j])
  end
  redis.call('pexpire', KEYS[k], ttl)
  a = a + count + 1
end
return n`;
/** Phones a MARK call writes at most: Redis is busy a few milliseconds per call. */
const MARK_CHUNK = 1000;

/** How long a connecting phone's mark waits for others', by default. */
const CONNECT_DELAY_MS = 10;

export interface PresenceWriteOptions {
  /** How long a connecting phone's mark may wait to be written with others; 10 ms by default. */
  connectDelayMs?: number;
  /** How long a refresh (a pong) may wait to be written with others; 1 s by default. */
  refreshDelayMs?: number;
  /** A batch that could not be written (Redis down), with its number of phones; its callers are told too. */
  onWriteFailed?: (err: unknown, phones: number) => void;
}

interface OnlineMark {
  clientId: string;
  connectionId: string;
}

/** What Redis says of a device for the failover sweep. */
export interface Liveness {
  online: boolean;
  /** When it was last seen online (ms since the epoch), if Redis still knows. */
  lastOnlineMs: number | undefined;
  /** The device was removed (the mark the gateways read). */
  removed: boolean;
}

/**
 * Which devices are connected right now: `presence:<device>` = connection id, with a TTL refreshed
 * by pongs; `presence-client:<client>`, the set of the client's devices marked online (an index
 * for drawing some of a large fleet at random, checked against `presence:` when read, and kept
 * while any of them refreshes); `presence-last:<device>`, when each was last seen online (ms),
 * written at every refresh and at disconnect; `device-removed:<device>`, the removal mark every
 * gateway checks on a send.
 */
export class PresenceStore {
  /** Marks not yet sent to Redis, by device, written together (see `write`). */
  private readonly marks: Batches<string, OnlineMark, void>;

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
    private readonly options: PresenceWriteOptions = {},
  ) {
    this.marks = new Batches((marks) => this.write(marks), options.onWriteFailed);
  }

  private key(deviceId: string): string {
    return presenceKey(deviceId);
  }

  /**
   * Marks the device online on this connection (at connect, and for every phone held when Redis
   * comes back); resolves once written, within `connectDelayMs` and a round trip. The marks made
   * meanwhile are written together: thousands of phones connecting cost a few round trips, not one
   * each, and their sessions go on together (their NATS subscriptions and events leave in one write).
   */
  async markOnline(deviceId: string, clientId: string, connectionId: string): Promise<void> {
    await this.marks.add(deviceId, { clientId, connectionId }, this.options.connectDelayMs ?? CONNECT_DELAY_MS);
  }

  /**
   * Keeps the device's mark alive (each pong): written with the others of the next
   * `refreshDelayMs`, far within the TTL, so that an idle fleet costs Redis one script call a
   * second and the hub no promise per pong. A failed write is reported once for its batch.
   */
  refresh(deviceId: string, clientId: string, connectionId: string): void {
    void this.marks.add(deviceId, { clientId, connectionId }, this.options.refreshDelayMs ?? 1000);
  }

  /** One MARK script call per MARK_CHUNK phones, all in one pipeline. */
  private async write(marks: ReadonlyMap<string, OnlineMark>): Promise<ReadonlyMap<string, void>> {
    const entries = [...marks];
    const pipeline = this.redis.pipeline();
    for (let i = 0; i < entries.length; i += MARK_CHUNK) {
      const chunk = entries.slice(i, i + MARK_CHUNK);
      const keys: string[] = [];
      const connections: string[] = [];
      const byClient = new Map<string, string[]>();
      for (const [deviceId, { clientId, connectionId }] of chunk) {
        keys.push(this.key(deviceId), lastOnlineKey(deviceId));
        connections.push(connectionId);
        const ids = byClient.get(clientId);
        if (ids) ids.push(deviceId);
        else byClient.set(clientId, [deviceId]);
      }
      keys.push(OFFLINE_KEY);
      const members: string[] = [];
      for (const [clientId, ids] of byClient) {
        keys.push(clientOnlineKey(clientId));
        members.push(String(ids.length), ...ids);
      }
      pipeline.eval(MARK, keys.length, ...keys, this.ttlMs, KEEP_MS, this.clock(), chunk.length, ...connections, ...members);
    }
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([err]) => err)?.[0];
    if (failed) throw failed;
    return new Map<string, void>();
  }

  async markOffline(deviceId: string, clientId: string, connectionId: string): Promise<void> {
    // A mark of this connection not yet sent must not outlive it: it is dropped (the batch it was
    // in still resolves). One already sent reaches Redis before the release, on the same connection.
    this.marks.drop(deviceId, (mark) => mark.connectionId === connectionId);
    const now = this.clock();
    await this.redis
      .multi()
      .eval(RELEASE, 2, this.key(deviceId), clientOnlineKey(clientId), connectionId, deviceId)
      .set(lastOnlineKey(deviceId), String(now), 'PX', KEEP_MS)
      .zadd(OFFLINE_KEY, now, deviceId)
      .exec();
  }

  /**
   * The devices that went offline (or were removed) since `sinceMs`, at most `limit`: those whose
   * messages the failover sweep may have to release. A phone marked online again leaves the set;
   * entries older than 30 days are dropped. A phone whose hub died leaves no entry (its presence
   * only expires): the sweep's full pass finds its messages.
   */
  async offlineSince(sinceMs: number, limit: number): Promise<string[]> {
    const [[err, ids]] = (await this.redis
      .pipeline()
      .zrangebyscore(OFFLINE_KEY, sinceMs, '+inf', 'LIMIT', 0, limit)
      .zremrangebyscore(OFFLINE_KEY, '-inf', this.clock() - KEEP_MS)
      .exec()) as [[Error | null, string[]]];
    if (err) throw err;
    return ids;
  }

  /**
   * Up to `size` of the client's online devices, drawn at random, in one round trip whatever the
   * size of its fleet: all of them when it has no more than `size` online.
   */
  async sampleOnline(clientId: string, size: number): Promise<string[]> {
    return (await this.redis.eval(SAMPLE, 2, clientOnlineKey(clientId), this.key(''), size)) as string[];
  }

  async onlineSet(deviceIds: string[]): Promise<Set<string>> {
    if (deviceIds.length === 0) return new Set();
    const values = await this.redis.mget(deviceIds.map((id) => this.key(id)));
    return new Set(deviceIds.filter((_, i) => values[i] !== null));
  }

  /** Marks the device removed, before its removal is answered (kept 30 days: its sends are refused meanwhile). */
  async markRemoved(deviceId: string): Promise<void> {
    await this.redis.multi().set(removedDeviceKey(deviceId), '1', 'PX', KEEP_MS).zadd(OFFLINE_KEY, this.clock(), deviceId).exec();
  }

  /** Presence, last time online and removal of each device, in one round trip. */
  async liveness(deviceIds: string[]): Promise<Map<string, Liveness>> {
    const out = new Map<string, Liveness>();
    if (deviceIds.length === 0) return out;
    const keys = deviceIds.flatMap((id) => [this.key(id), lastOnlineKey(id), removedDeviceKey(id)]);
    const values = await this.redis.mget(keys);
    deviceIds.forEach((id, i) => {
      const last = values[i * 3 + 1];
      out.set(id, {
        online: values[i * 3] !== null,
        lastOnlineMs: last == null || Number.isNaN(Number(last)) ? undefined : Number(last),
        removed: values[i * 3 + 2] !== null,
      });
    });
    return out;
  }
}
