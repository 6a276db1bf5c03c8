import { presenceKey, type Redis } from '@smsgw/platform';

// Deletes the key only if it still names this connection, so that a closing
// connection never erases the presence of the one that replaced it.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/** Which devices are connected right now: `presence:<device>` = connection id, with a TTL refreshed by pongs. */
export class PresenceStore {
  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {}

  private key(deviceId: string): string {
    return presenceKey(deviceId);
  }

  async markOnline(deviceId: string, connectionId: string): Promise<void> {
    await this.redis.set(this.key(deviceId), connectionId, 'PX', this.ttlMs);
  }

  async markOffline(deviceId: string, connectionId: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(deviceId), connectionId);
  }

  async onlineSet(deviceIds: string[]): Promise<Set<string>> {
    if (deviceIds.length === 0) return new Set();
    const values = await this.redis.mget(deviceIds.map((id) => this.key(id)));
    return new Set(deviceIds.filter((_, i) => values[i] !== null));
  }
}
