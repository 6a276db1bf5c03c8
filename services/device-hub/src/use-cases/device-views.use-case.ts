import type { DeviceLimitsUseCases, LimitedDeviceView } from './device-limits.use-case';
import type { DeviceUseCases, DeviceView } from './devices.use-case';

/** The reads and the rename of the API: each answers the devices as it shows them, with their limits, usage and room. */
export class DeviceViewUseCases {
  constructor(
    private readonly devices: Pick<DeviceUseCases, 'get' | 'list' | 'sampleOnline' | 'rename'>,
    private readonly limits: Pick<DeviceLimitsUseCases, 'withUsage'>,
  ) {}

  /** The client's devices; with `onlineOnly` and a `sample` above 0, at most that many online ones drawn at random. */
  async list(clientId: string, onlineOnly: boolean, sample: number): Promise<LimitedDeviceView[]> {
    const views =
      onlineOnly && sample > 0 ? await this.devices.sampleOnline(clientId, sample) : await this.devices.list(clientId, onlineOnly);
    return this.limits.withUsage(views, !(onlineOnly && sample > 0));
  }

  async get(clientId: string, deviceId: string): Promise<LimitedDeviceView> {
    return this.one(await this.devices.get(clientId, deviceId));
  }

  async rename(clientId: string, deviceId: string, name: string): Promise<LimitedDeviceView> {
    return this.one(await this.devices.rename(clientId, deviceId, name));
  }

  private async one(view: DeviceView): Promise<LimitedDeviceView> {
    return (await this.limits.withUsage([view]))[0]!;
  }
}
