import type { Pool } from '@smsgw/platform';
import { HISTORY_MS, sampleSlot, type KillRisk, type SimSignal, type Telemetry } from '../domain/telemetry';

/** One stored sample of a phone. */
export interface TelemetrySample extends Telemetry {
  at: Date;
}

interface SampleRow {
  at: Date;
  battery: number | null;
  charging: boolean;
  sims: SimSignal[];
  storage_free_mb: string | null;
  app_version: string;
  android_version: string;
  risks: string[];
}

const sampleOf = (row: SampleRow): TelemetrySample => ({
  at: row.at,
  ...(row.battery !== null ? { battery: row.battery } : {}),
  charging: row.charging,
  sims: row.sims,
  ...(row.storage_free_mb !== null ? { storageFreeMb: Number(row.storage_free_mb) } : {}),
  appVersion: row.app_version,
  androidVersion: row.android_version,
  risks: row.risks as KillRisk[],
});

/** The phones' telemetry samples (migration 007): one per phone and 5-minute slot, a day of them. */
export class TelemetryRepository {
  constructor(private readonly pool: Pool) {}

  /** Keeps `t` as the phone's sample of the slot of `atMs` (the last of a slot wins). */
  async record(deviceId: string, t: Telemetry, atMs: number): Promise<void> {
    await this.pool.query(
      `INSERT INTO device_telemetry (device_id, slot, at, battery, charging, sims, storage_free_mb, app_version, android_version, risks)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (device_id, slot) DO UPDATE SET at = EXCLUDED.at, battery = EXCLUDED.battery, charging = EXCLUDED.charging,
         sims = EXCLUDED.sims, storage_free_mb = EXCLUDED.storage_free_mb, app_version = EXCLUDED.app_version,
         android_version = EXCLUDED.android_version, risks = EXCLUDED.risks`,
      [
        deviceId,
        new Date(sampleSlot(atMs)),
        new Date(atMs),
        t.battery ?? null,
        t.charging,
        JSON.stringify(t.sims),
        t.storageFreeMb ?? null,
        t.appVersion,
        t.androidVersion,
        t.risks,
      ],
    );
  }

  /** The phone's samples of the last day, oldest first (at most 288 + 1). */
  async history(deviceId: string, nowMs: number): Promise<TelemetrySample[]> {
    const { rows } = await this.pool.query<SampleRow>(
      `SELECT at, battery, charging, sims, storage_free_mb, app_version, android_version, risks
       FROM device_telemetry WHERE device_id = $1 AND slot >= $2 ORDER BY slot LIMIT 300`,
      [deviceId, new Date(nowMs - HISTORY_MS)],
    );
    return rows.map(sampleOf);
  }

  /** Deletes the samples older than a day, `batch` at a time; how many went. */
  async purge(nowMs: number, batch = 5000): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM device_telemetry WHERE ctid IN (SELECT ctid FROM device_telemetry WHERE slot < $1 LIMIT $2)`,
      [new Date(nowMs - HISTORY_MS), batch],
    );
    return rowCount ?? 0;
  }
}
