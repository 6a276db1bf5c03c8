// Protocol 6's telemetry: what the phone reports of itself, when a change is worth a frame at
// once, and the simulator's pretend battery (`--sim-battery`, `--sim-unplugged`, `--sim-battery-drain`).

export type NetworkType = '5g' | 'lte' | '3g' | '2g' | 'wifi' | 'none' | 'unknown';
export type KillRisk = 'battery_optimized' | 'sms_restricted' | 'no_boot_start';

export interface SimSignal {
  slot: number;
  /** 0 (none) to 4 (full). */
  level?: number;
  dbm?: number;
  network: NetworkType;
}

/** The `telemetry` frame's fields. */
export interface Telemetry {
  battery?: number;
  charging: boolean;
  sims: SimSignal[];
  storage_free_mb?: number;
  app_version: string;
  android_version: string;
  risks: KillRisk[];
}

/** A battery at or below this, not charging, is low (the hub warns the owner). */
export const BATTERY_LOW_PCT = 15;
/** Telemetry goes at least this often while connected. */
export const TELEMETRY_INTERVAL_MS = 5 * 60_000;
/** How often the agent looks at its state for a significant change. */
export const TELEMETRY_SAMPLE_MS = 30_000;

/**
 * Whether `next` differs enough from what was last sent to go at once: charging plugged or
 * unplugged, the battery crossing the low threshold or moving 10 points, a SIM's network type
 * or a kill risk changing.
 */
export function significantChange(last: Telemetry | undefined, next: Telemetry): boolean {
  if (!last) return true;
  if (last.charging !== next.charging) return true;
  if ((last.battery === undefined) !== (next.battery === undefined)) return true;
  if (last.battery !== undefined && next.battery !== undefined) {
    if (last.battery <= BATTERY_LOW_PCT !== next.battery <= BATTERY_LOW_PCT) return true;
    if (Math.abs(last.battery - next.battery) >= 10) return true;
  }
  const networks = (t: Telemetry) => t.sims.map((s) => `${s.slot}:${s.network}`).join(',');
  if (networks(last) !== networks(next)) return true;
  return [...last.risks].sort().join(',') !== [...next.risks].sort().join(',');
}

/** The simulator's battery: a level that drains by `drainPerMinute` while unplugged (never below 0). */
export class SimulatedBattery {
  private readonly startedAt: number;

  constructor(
    private readonly startPct: number,
    readonly charging: boolean,
    private readonly drainPerMinute: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.startedAt = clock();
  }

  get level(): number {
    if (this.charging) return this.startPct;
    const drained = ((this.clock() - this.startedAt) / 60_000) * this.drainPerMinute;
    return Math.max(0, Math.round(this.startPct - drained));
  }
}

/** The simulator's telemetry: its battery, full signal on LTE for each SIM, no kill risk. */
export function simulatedTelemetry(battery: SimulatedBattery, simSlots: readonly number[], appVersion: string): Telemetry {
  return {
    battery: battery.level,
    charging: battery.charging,
    sims: simSlots.map((slot) => ({ slot, level: 4, dbm: -85, network: 'lte' })),
    storage_free_mb: 8192,
    app_version: appVersion,
    android_version: 'simulator',
    risks: [],
  };
}
