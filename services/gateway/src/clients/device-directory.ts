import { AppError, presenceKey, type PromiseClient, type TickPipeline } from '@smsgw/platform';
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
  private readonly owners = new Map<string, { device: KnownDevice; until: number }>();
  private static readonly MAX_ENTRIES = 50_000;

  constructor(
    private readonly devices: PromiseClient<devicehub.DeviceHubServiceClient>,
    private readonly redis: TickPipeline,
    private readonly ttlMs: number,
  ) {}

  /** The client's device, or INVALID_DEVICE_ID (unknown, or another client's). */
  async owned(clientId: string, deviceId: string): Promise<KnownDevice> {
    const cached = this.owners.get(deviceId);
    if (cached && cached.until > Date.now()) {
      if (cached.device.clientId !== clientId) throw new AppError('INVALID_DEVICE_ID');
      return cached.device;
    }
    const found = await this.devices.getDevice({ clientId, deviceId });
    const device = { deviceId: found.deviceId, clientId: found.clientId };
    if (this.owners.size >= DeviceDirectory.MAX_ENTRIES) this.owners.delete(this.owners.keys().next().value!);
    this.owners.set(deviceId, { device, until: Date.now() + this.ttlMs });
    return device;
  }

  async isOnline(deviceId: string): Promise<boolean> {
    return (await this.redis.run<number>((p) => p.exists(presenceKey(deviceId)))) === 1;
  }
}
