import { AppError, presenceKey, removedDeviceKey, TtlCache, type PromiseClient, type TickPipeline } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';

export interface KnownDevice {
  deviceId: string;
  clientId: string;
}

/** What Redis says of a device: connected now, or removed from its client (for good). */
export interface DeviceState {
  online: boolean;
  removed: boolean;
}

/**
 * Which client owns a device, and whether it is online or removed, on the
 * hot path of every send. Ownership never changes, so it is asked of the
 * device-hub once and kept for `ttlMs`; presence and removal are read from
 * Redis where the hub keeps them, so an offline or removed phone is seen at
 * once by every replica, whatever its cache holds.
 */
export class DeviceDirectory {
  private readonly owners: TtlCache<KnownDevice & { removed?: true }>;

  constructor(
    private readonly devices: PromiseClient<devicehub.DeviceHubServiceClient>,
    private readonly redis: TickPipeline,
    ttlMs: number,
  ) {
    this.owners = new TtlCache({ maxEntries: 50_000, ttlMs });
  }

  /** The client's device, or INVALID_DEVICE_ID (unknown, another client's, or removed). */
  async owned(clientId: string, deviceId: string): Promise<KnownDevice> {
    const cached = this.owners.get(deviceId);
    if (cached) {
      if (cached.clientId !== clientId || cached.removed) throw new AppError('INVALID_DEVICE_ID');
      return cached;
    }
    const found = await this.devices.getDevice({ clientId, deviceId });
    const device = { deviceId: found.deviceId, clientId: found.clientId };
    this.owners.set(deviceId, device);
    return device;
  }

  /**
   * Presence and removal in one Redis round trip (two commands of the same
   * tick's pipeline, with whatever else the request asks in that tick).
   */
  async state(deviceId: string): Promise<DeviceState> {
    const [online, removed] = await Promise.all([
      this.redis.run<number>((p) => p.exists(presenceKey(deviceId))),
      this.redis.run<number>((p) => p.exists(removedDeviceKey(deviceId))),
    ]);
    return { online: online === 1, removed: removed === 1 };
  }

  /**
   * A device Redis says is removed: its ownership is no longer served from
   * the cache (a device id is never reused, so the entry says "refuse").
   */
  forgetRemoved(device: KnownDevice): void {
    this.owners.set(device.deviceId, { ...device, removed: true });
  }
}
