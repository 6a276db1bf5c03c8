import { AppError } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { SimHealthRepository } from '../data/sim-health.repository';
import { DEFAULT_SIM_HEALTH, healthySim, invalidSimHealthFields, type SimHealth, type SimHealthSettings } from '../domain/sim-health';
import { isSimSlot } from '../domain/sims';
import type { SessionRegistry } from '../sessions/session-registry';
import { getDevice, type DeviceLookup } from './devices.use-case';

const FIELD_NAMES: Record<keyof SimHealthSettings, string> = {
  consecutiveFailures: 'consecutive_failures',
  failureRatio: 'failure_ratio',
  window: 'window',
  minSample: 'min_sample',
  coolDownSeconds: 'cool_down_seconds',
};

/** The owner's SIM health thresholds, and the release of a quarantined SIM by hand. */
export interface SimHealthDeps extends DeviceLookup {
  simHealth: Pick<SimHealthRepository, 'setSettings' | 'release'>;
  sessions: Pick<SessionRegistry, 'reload'>;
  /** Publishes `device.recovered` of a SIM released by hand. */
  publishRecovered(device: DeviceRow, health: SimHealth): Promise<void>;
}

/** Refuses thresholds out of their bounds: VALIDATION_ERROR naming each field. */
export function checkSimHealth(settings: SimHealthSettings): void {
  const bad = invalidSimHealthFields(settings);
  if (bad.length === 0) return;
  throw new AppError('VALIDATION_ERROR', {
    details: bad.map((key) => ({
      field: FIELD_NAMES[key],
      code: 'VALIDATION_ERROR',
      message: key === 'minSample' ? "L'échantillon minimal doit être entre 1 et la fenêtre." : 'Valeur hors des bornes permises.',
    })),
  });
}

/** The thresholds of a request (a field left out, 0, is its default; 0 turns a rule off only where the bounds allow it). */
export function simHealthFromRequest(given: Partial<SimHealthSettings> | null | undefined): SimHealthSettings {
  return {
    consecutiveFailures: given?.consecutiveFailures ?? DEFAULT_SIM_HEALTH.consecutiveFailures,
    failureRatio: given?.failureRatio ?? DEFAULT_SIM_HEALTH.failureRatio,
    window: given?.window || DEFAULT_SIM_HEALTH.window,
    minSample: given?.minSample || DEFAULT_SIM_HEALTH.minSample,
    coolDownSeconds: given?.coolDownSeconds || DEFAULT_SIM_HEALTH.coolDownSeconds,
  };
}

/**
 * Stores the phone's thresholds (all of them), or, with `followAccount`, makes it follow its
 * account's again; tells its session. VALIDATION_ERROR naming each field out of bounds.
 */
export async function setSimHealthSettings(
  deps: Omit<SimHealthDeps, 'publishRecovered'>,
  clientId: string,
  deviceId: string,
  settings: SimHealthSettings,
  followAccount = false,
): Promise<void> {
  if (!followAccount) checkSimHealth(settings);
  await getDevice(deps, clientId, deviceId);
  await deps.simHealth.setSettings(deviceId, followAccount ? {} : settings);
  deps.sessions.reload(deviceId);
}

/** Releases the SIM of `slot` by hand: healthy again at once (its session told), `device.recovered` published. */
export async function releaseSim(deps: SimHealthDeps, clientId: string, deviceId: string, slot: number): Promise<void> {
  if (!isSimSlot(slot)) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'slot', code: 'VALIDATION_ERROR' }] });
  const { device } = await getDevice(deps, clientId, deviceId);
  if (!(await deps.simHealth.release(deviceId, slot))) return;
  deps.sessions.reload(deviceId);
  await deps.publishRecovered(device, healthySim(slot));
}
