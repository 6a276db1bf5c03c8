import { AppError } from '@smsgw/platform';
import type { DiagnosticsRepository, Diagnostics } from '../data/diagnostics.repository';
import type { TelemetryRepository, TelemetrySample } from '../data/telemetry.repository';
import type { SessionRegistry } from '../sessions/session-registry';
import { getDevice, type DeviceLookup } from './devices.use-case';

/** What the dashboard shows of a phone's health: its day of telemetry, its last log, its settings' state. */
export interface PhoneHealth {
  /** Oldest first; the last one is the phone's current state. */
  samples: TelemetrySample[];
  diagnostics: Diagnostics;
}

/** A phone's telemetry and diagnostics, and the owner's request for its log (issue 38). */
export interface PhoneHealthDeps extends DeviceLookup {
  telemetry: Pick<TelemetryRepository, 'history'>;
  diagnostics: Pick<DiagnosticsRepository, 'get' | 'logRequested'>;
  sessions: Pick<SessionRegistry, 'requestLog'>;
  clock: () => number;
}

export async function phoneHealth(deps: Omit<PhoneHealthDeps, 'sessions'>, clientId: string, deviceId: string): Promise<PhoneHealth> {
  const { device } = await getDevice(deps, clientId, deviceId);
  const [samples, diagnostics] = await Promise.all([
    deps.telemetry.history(device.device_id, deps.clock()),
    deps.diagnostics.get(device.device_id),
  ]);
  return { samples, diagnostics };
}

/**
 * Asks the connected phone for its recent log; DEVICE_OFFLINE when it is not connected. The
 * answer comes later (a `log` frame, stored): the request time tells the owner what to wait for.
 */
export async function requestPhoneLog(deps: PhoneHealthDeps, clientId: string, deviceId: string): Promise<Date> {
  const { device, online } = await getDevice(deps, clientId, deviceId);
  if (!online) throw new AppError('DEVICE_OFFLINE');
  const at = new Date(deps.clock());
  await deps.diagnostics.logRequested(device.device_id, at);
  deps.sessions.requestLog(device.device_id);
  return at;
}
