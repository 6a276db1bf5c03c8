import { AppError } from '@smsgw/platform';
import type { DeviceRepository } from '../data/device.repository';
import type { FleetSettingsRepository } from '../data/fleet-settings.repository';
import { simHealthSettingsOf, type SimHealthSettings } from '../domain/sim-health';
import type { SessionRegistry } from '../sessions/session-registry';
import { checkSimHealth } from './sim-health.use-case';

/** The longest offline delay an account may choose before its warning: a week. */
export const OFFLINE_ALERT_MAX_SECONDS = 7 * 86_400;

/** An account's settings for all its phones, as they apply now (the hub's defaults where it saved none). */
export interface FleetSettingsView {
  /** 0: no offline warning. */
  offlineAlertSeconds: number;
  simHealth: SimHealthSettings;
}

export interface FleetSettingsDeps {
  repo: Pick<FleetSettingsRepository, 'get' | 'set'>;
  devices: Pick<DeviceRepository, 'listByClient'>;
  sessions: Pick<SessionRegistry, 'reload'>;
  /** The offline delay of an account that saved none (the hub's configuration). */
  defaultOfflineSeconds: number;
}

export async function getFleetSettings(deps: FleetSettingsDeps, clientId: string): Promise<FleetSettingsView> {
  const stored = await deps.repo.get(clientId);
  return {
    offlineAlertSeconds: stored.offlineAlertSeconds ?? deps.defaultOfflineSeconds,
    simHealth: simHealthSettingsOf(stored.simHealth),
  };
}

/**
 * Stores an account's settings (all of them); its phones that follow the account's SIM health
 * thresholds take the new ones at once (their sessions, on any replica, are told to read them
 * again). VALIDATION_ERROR naming each field out of bounds.
 */
export async function setFleetSettings(deps: FleetSettingsDeps, clientId: string, settings: FleetSettingsView): Promise<FleetSettingsView> {
  const seconds = settings.offlineAlertSeconds;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > OFFLINE_ALERT_MAX_SECONDS) {
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'offline_alert_seconds', code: 'VALIDATION_ERROR', message: 'Valeur hors des bornes permises.' }],
    });
  }
  checkSimHealth(settings.simHealth);
  await deps.repo.set(clientId, seconds, settings.simHealth);
  for (const device of await deps.devices.listByClient(clientId)) deps.sessions.reload(device.device_id);
  return getFleetSettings(deps, clientId);
}
