import { AppError, presenceKey, TtlCache, type PromiseClient, type TickPipeline } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';

export interface KnownDevice {
  deviceId: string;
  clientId: string;
}

/**
 * Which client owns a device, and whether it is online, on the hot path of
 * every send. Ownership never changes, so it is asked of the device-hub once
 * and kept for `ttlMs`; presence is read from Redis where the hub keeps it,
 * so an offline phone is seen at once.
 */
export class DeviceDirectory {
  private readonly owners: TtlCache<KnownDevice>;

  constructor(
    private readonly devices: PromiseClient<devicehub.DeviceHubServiceClient>,
    private readonly redis: TickPipeline,
    ttlMs: number,
  ) {
    this.owners = new TtlCache({ maxEntries: 50_000, ttlMs });
  }

  /** The client's device, or INVALID_DEVICE_ID (unknown, or another client's). */
  async owned(clientId: string, deviceId: string): Promise<KnownDevice> {
    const cached = this.owners.get(deviceId);
    if (cached) {
      if (cached.clientId !== clientId) throw new AppError('INVALID_DEVICE_ID');
      return cached;
    }
    const found = await this.devices.getDevice({ clientId, deviceId });
    const device = { deviceId: found.deviceId, clientId: found.clientId };
    this.owners.set(deviceId, device);
    return device;
  }

  async isOnline(deviceId: string): Promise<boolean> {
    return (await this.redis.run<number>((p) => p.exists(presenceKey(deviceId)))) === 1;
  }
}
