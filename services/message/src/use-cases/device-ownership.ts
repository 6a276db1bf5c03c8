import { AppError, TtlCache, type PromiseClient } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';

/** A device never changes client: an ownership seen stays true (the cache only bounds memory). */
const OWNED_TTL_MS = 3600_000;
const MAX_ENTRIES = 100_000;

const keyOf = (clientId: string, deviceId: string) => `${clientId}\u0000${deviceId}`;

/**
 * Whether each device a send names is its client's, asked of the device-hub (which owns devices)
 * before anything is queued on it: a caller that forgot its own check (the gateway, the dashboard
 * and the otp service each check) still cannot queue on another client's phone. An ownership seen
 * once is kept (a device never changes client), so the send path asks once per device and
 * process, then costs a map lookup; the devices not known yet go in one call per batch. The hub
 * not answering fails the send (SERVICE_UNAVAILABLE): it is never assumed.
 */
export class DeviceOwnership {
  private readonly owned = new TtlCache<true>({ maxEntries: MAX_ENTRIES, ttlMs: OWNED_TTL_MS });

  constructor(private readonly hub: Pick<PromiseClient<devicehub.DeviceHubServiceClient>, 'ownedDevices'>) {}

  /** The keys (`client\0device`) of the pairs whose device is not the client's. */
  async foreign(pairs: readonly { clientId: string; deviceId: string }[]): Promise<Set<string>> {
    const unknown = new Map<string, { clientId: string; deviceId: string }>();
    for (const p of pairs) {
      const key = keyOf(p.clientId, p.deviceId);
      if (p.deviceId && !this.owned.get(key)) unknown.set(key, { clientId: p.clientId, deviceId: p.deviceId });
    }
    const asked = [...unknown.values()];
    // The hub answers 1,000 pairs a call; a batch names far fewer.
    for (let i = 0; i < asked.length; i += 1000) {
      const { devices } = await this.hub.ownedDevices({ devices: asked.slice(i, i + 1000) });
      for (const d of devices) {
        const key = keyOf(d.clientId, d.deviceId);
        if (unknown.delete(key)) this.owned.set(key, true);
      }
    }
    return new Set(unknown.keys());
  }

  /** INVALID_DEVICE_ID unless every device of the pairs is its client's. */
  async require(pairs: readonly { clientId: string; deviceId: string }[]): Promise<void> {
    if ((await this.foreign(pairs)).size > 0) throw new AppError('INVALID_DEVICE_ID');
  }

  /** Whether the pair was found foreign by `foreign`. */
  static isForeign(foreign: Set<string>, clientId: string, deviceId: string): boolean {
    return foreign.has(keyOf(clientId, deviceId));
  }
}
