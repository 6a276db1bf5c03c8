import { AppError } from '@smsgw/platform';
import type { DiagnosticsRepository, Diagnostics } from '../data/diagnostics.repository';
import type { TelemetryRepository, TelemetrySample } from '../data/telemetry.repository';
import type { SessionRegistry } from '../sessions/session-registry';
import type { DeviceUseCases } from './devices.use-case';

/** What the dashboard shows of a phone's health: its day of telemetry, its last log, its settings' state. */
export interface PhoneHealth {
  /** Oldest first; the last one is the phone's current state. */
  samples: TelemetrySample[];
  diagnostics: Diagnostics;
}

/** A phone's telemetry and diagnostics, and the owner's request for its log (issue 38). */
export class PhoneHealthUseCases {
  constructor(
    private readonly devices: Pick<DeviceUseCases, 'get'>,
    private readonly telemetry: Pick<TelemetryRepository, 'history'>,
    private readonly diagnostics: Pick<DiagnosticsRepository, 'get' | 'logRequested'>,
    private readonly sessions: Pick<SessionRegistry, 'requestLog'>,
    private readonly clock: () => number = Date.now,
  ) {}

  async health(clientId: string, deviceId: string): Promise<PhoneHealth> {
    const { device } = await this.devices.get(clientId, deviceId);
    const [samples, diagnostics] = await Promise.all([
      this.telemetry.history(device.device_id, this.clock()),
      this.diagnostics.get(device.device_id),
    ]);
    return { samples, diagnostics };
  }

  /**
   * Asks the connected phone for its recent log; DEVICE_OFFLINE when it is not connected. The
   * answer comes later (a `log` frame, stored): the request time tells the owner what to wait for.
   */
  async requestLog(clientId: string, deviceId: string): Promise<Date> {
    const { device, online } = await this.devices.get(clientId, deviceId);
    if (!online) throw new AppError('DEVICE_OFFLINE');
    const at = new Date(this.clock());
    await this.diagnostics.logRequested(device.device_id, at);
    this.sessions.requestLog(device.device_id);
    return at;
  }
}
