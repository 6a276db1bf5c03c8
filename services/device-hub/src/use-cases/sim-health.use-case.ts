import { AppError } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { SimHealthRepository } from '../data/sim-health.repository';
import { healthySim, invalidSimHealthFields, type SimHealth, type SimHealthSettings } from '../domain/sim-health';
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

/** Stores the phone's thresholds (all of them) and tells its session. VALIDATION_ERROR naming each field out of bounds. */
export async function setSimHealthSettings(
  deps: Omit<SimHealthDeps, 'publishRecovered'>,
  clientId: string,
  deviceId: string,
  settings: SimHealthSettings,
): Promise<void> {
  const bad = invalidSimHealthFields(settings);
  if (bad.length > 0) {
    throw new AppError('VALIDATION_ERROR', {
      details: bad.map((key) => ({
        field: FIELD_NAMES[key],
        code: 'VALIDATION_ERROR',
        message: key === 'minSample' ? "L'échantillon minimal doit être entre 1 et la fenêtre." : 'Valeur hors des bornes permises.',
      })),
    });
  }
  await getDevice(deps, clientId, deviceId);
  await deps.simHealth.setSettings(deviceId, settings);
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
