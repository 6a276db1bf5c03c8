import { presenceKey, removedDeviceKey, type Redis } from '@smsgw/platform';

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
const clientOnlineKey = (clientId: string) => `presence-client:${clientId}`;

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
  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  private key(deviceId: string): string {
    return presenceKey(deviceId);
  }

  async markOnline(deviceId: string, clientId: string, connectionId: string): Promise<void> {
    await this.redis
      .multi()
      .set(this.key(deviceId), connectionId, 'PX', this.ttlMs)
      .set(lastOnlineKey(deviceId), String(this.clock()), 'PX', KEEP_MS)
      .sadd(clientOnlineKey(clientId), deviceId)
      .pexpire(clientOnlineKey(clientId), this.ttlMs)
      .exec();
  }

  async markOffline(deviceId: string, clientId: string, connectionId: string): Promise<void> {
    await this.redis
      .multi()
      .eval(RELEASE, 2, this.key(deviceId), clientOnlineKey(clientId), connectionId, deviceId)
      .set(lastOnlineKey(deviceId), String(this.clock()), 'PX', KEEP_MS)
      .exec();
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
    await this.redis.set(removedDeviceKey(deviceId), '1', 'PX', KEEP_MS);
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
