// A phone's telemetry (protocol 6): reading the `telemetry` frame into bounded values, when its
// battery counts as low, and the bands the metrics count phones in. Pure: no I/O.
import { isSimSlot } from './sims';

/** The network types an agent may name; anything else reads `unknown` (bounded metric labels). */
export const NETWORK_TYPES = ['5g', 'lte', '3g', '2g', 'wifi', 'none', 'unknown'] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

/** Why the system may stop the app; unknown names are left out. */
export const KILL_RISKS = ['battery_optimized', 'sms_restricted', 'no_boot_start'] as const;
export type KillRisk = (typeof KILL_RISKS)[number];

/** A battery at or below this percentage, not charging, is low (the owner is warned once per episode). */
export const BATTERY_LOW_PCT = 15;
/** A low episode ends once the phone charges, or its battery is back above this. */
export const BATTERY_RECOVERED_PCT = 20;
/** One sample per phone is kept per slot of this length, for a day. */
export const SAMPLE_SLOT_MS = 5 * 60_000;
export const HISTORY_MS = 24 * 3600_000;

export interface SimSignal {
  slot: number;
  /** 0 (none) to 4 (full), Android's signal level. */
  level?: number;
  /** Received power in dBm, when known. */
  dbm?: number;
  network: NetworkType;
}

export interface Telemetry {
  /** 0 to 100; absent when the phone cannot tell. */
  battery?: number;
  charging: boolean;
  sims: SimSignal[];
  /** Free storage in MiB. */
  storageFreeMb?: number;
  appVersion: string;
  androidVersion: string;
  risks: KillRisk[];
}

const MAX_VERSION = 40;

const intIn = (value: unknown, min: number, max: number): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? Math.round(value) : undefined;

const shortText = (value: unknown): string => (typeof value === 'string' ? value.replace(/[^\x20-\x7e]/g, '').slice(0, MAX_VERSION) : '');

/** The telemetry a frame carries: out-of-range values are left out rather than the frame refused. */
export function telemetryOf(frame: Record<string, unknown>): Telemetry {
  const sims: SimSignal[] = [];
  if (Array.isArray(frame.sims)) {
    for (const entry of frame.sims.slice(0, 8) as unknown[]) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { slot, level, dbm, network } = entry as Record<string, unknown>;
      if (!isSimSlot(slot) || sims.some((s) => s.slot === slot)) continue;
      const lvl = intIn(level, 0, 4);
      const power = intIn(dbm, -150, 0);
      sims.push({
        slot,
        ...(lvl !== undefined ? { level: lvl } : {}),
        ...(power !== undefined ? { dbm: power } : {}),
        network: NETWORK_TYPES.includes(network as never) ? (network as NetworkType) : 'unknown',
      });
    }
    sims.sort((a, b) => a.slot - b.slot);
  }
  const risks = Array.isArray(frame.risks) ? KILL_RISKS.filter((risk) => (frame.risks as unknown[]).includes(risk)) : [];
  const battery = intIn(frame.battery, 0, 100);
  const storage = intIn(frame.storage_free_mb, 0, 1e9);
  return {
    ...(battery !== undefined ? { battery } : {}),
    charging: frame.charging === true,
    sims,
    ...(storage !== undefined ? { storageFreeMb: storage } : {}),
    appVersion: shortText(frame.app_version),
    androidVersion: shortText(frame.android_version),
    risks,
  };
}

/** Whether this sample opens (or continues) a low-battery episode. */
export const batteryLow = (t: Pick<Telemetry, 'battery' | 'charging'>): boolean =>
  !t.charging && t.battery !== undefined && t.battery <= BATTERY_LOW_PCT;

/** Whether this sample ends a low-battery episode (between the two thresholds, the episode goes on). */
export const batteryRecovered = (t: Pick<Telemetry, 'battery' | 'charging'>): boolean =>
  t.charging || t.battery === undefined || t.battery > BATTERY_RECOVERED_PCT;

/** The band a battery level is counted in by `hub.phone_battery` (bounded labels). */
export function batteryBand(battery: number | undefined): 'unknown' | 'low' | 'medium' | 'high' {
  if (battery === undefined) return 'unknown';
  if (battery <= BATTERY_LOW_PCT) return 'low';
  return battery <= 50 ? 'medium' : 'high';
}

/** The start of the sample slot of `atMs`: a phone keeps one sample per slot. */
export const sampleSlot = (atMs: number): number => Math.floor(atMs / SAMPLE_SLOT_MS) * SAMPLE_SLOT_MS;
