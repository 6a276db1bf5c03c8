import { presenceKey, removedDeviceKey, type Redis } from '@smsgw/platform';

// Deletes the key only if it still names this connection, so that a closing
// connection never erases the presence of the one that replaced it.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** How long the "last online" time and the removal mark of a device are kept. */
const KEEP_MS = 30 * 24 * 3600_000;
const lastOnlineKey = (deviceId: string) => `presence-last:${deviceId}`;

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
 * by pongs; `presence-last:<device>`, when each was last seen online (ms), written at every refresh
 * and at disconnect; `device-removed:<device>`, the removal mark every gateway checks on a send.
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

  async markOnline(deviceId: string, connectionId: string): Promise<void> {
    await this.redis
      .multi()
      .set(this.key(deviceId), connectionId, 'PX', this.ttlMs)
      .set(lastOnlineKey(deviceId), String(this.clock()), 'PX', KEEP_MS)
      .exec();
  }

  async markOffline(deviceId: string, connectionId: string): Promise<void> {
    await this.redis
      .multi()
      .eval(RELEASE, 1, this.key(deviceId), connectionId)
      .set(lastOnlineKey(deviceId), String(this.clock()), 'PX', KEEP_MS)
      .exec();
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
