import type { DeviceRepository } from '../data/device.repository';
import { limitsOf } from '../data/device.repository';
import type { UsageStore } from '../data/usage.store';
import { hasRoom, validateLimits, type DeviceLimits, type Usage } from '../domain/limits';
import type { SessionRegistry } from '../sessions/session-registry';
import type { DeviceUseCases, DeviceView } from './devices.use-case';

/** A device as the API shows it: with its limits, what it sent in their windows, and whether it may send now. */
export interface LimitedDeviceView extends DeviceView {
  limits: DeviceLimits;
  usage: Usage;
  hasRoom: boolean;
}

/** Per-phone limits and hours: setting them, and the usage and room of devices for their views. */
export class DeviceLimitsUseCases {
  constructor(
    private readonly devices: Pick<DeviceUseCases, 'get'>,
    private readonly repo: Pick<DeviceRepository, 'setLimits'>,
    private readonly usage: Pick<UsageStore, 'usage'>,
    private readonly sessions: Pick<SessionRegistry, 'reload'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The views with limits, usage (one Redis round trip for all) and room. */
  async withUsage(views: DeviceView[]): Promise<LimitedDeviceView[]> {
    const now = this.clock();
    const usage = await this.usage.usage(
      views.map((v) => v.device.device_id),
      now,
    );
    return views.map((view) => {
      const limits = limitsOf(view.device);
      const used = usage.get(view.device.device_id) ?? { lastMinute: 0, lastHour: 0, lastDay: 0 };
      return { ...view, limits, usage: used, hasRoom: hasRoom(now, limits, used) };
    });
  }

  /**
   * Stores the client's device's limits (all of them: a field at 0 or empty is none) and tells
   * the replica holding its phone to read them again. VALIDATION_ERROR for impossible values.
   */
  async setLimits(clientId: string, deviceId: string, input: Partial<DeviceLimits>): Promise<LimitedDeviceView> {
    const limits = validateLimits(input);
    await this.devices.get(clientId, deviceId);
    await this.repo.setLimits(deviceId, limits);
    this.sessions.reload(deviceId);
    const [view] = await this.withUsage([await this.devices.get(clientId, deviceId)]);
    return view!;
  }
}
