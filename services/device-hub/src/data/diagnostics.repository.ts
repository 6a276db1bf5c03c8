import type { Pool } from '@smsgw/platform';

/** A phone's diagnostics row (migration 008); a phone without one has all of it empty. */
export interface Diagnostics {
  logRequestedAt?: Date;
  logReceivedAt?: Date;
  logLines: string[];
  settingsVersion: string;
  settingsSentAt?: Date;
  settingsAppliedVersion: string;
  settingsAppliedAt?: Date;
}

interface DiagnosticsRow {
  log_requested_at: Date | null;
  log_received_at: Date | null;
  log_lines: string[];
  settings_version: string;
  settings_sent_at: Date | null;
  settings_applied_version: string;
  settings_applied_at: Date | null;
}

/** The diagnostics and warning state of each phone (migration 008). */
export class DiagnosticsRepository {
  constructor(private readonly pool: Pool) {}

  private async set(deviceId: string, columns: string, values: unknown[]): Promise<void> {
    await this.pool.query(`INSERT INTO device_diagnostics (device_id) VALUES ($1) ON CONFLICT (device_id) DO NOTHING`, [deviceId]);
    await this.pool.query(`UPDATE device_diagnostics SET ${columns} WHERE device_id = $1`, [deviceId, ...values]);
  }

  async get(deviceId: string): Promise<Diagnostics> {
    const { rows } = await this.pool.query<DiagnosticsRow>(
      `SELECT log_requested_at, log_received_at, log_lines, settings_version, settings_sent_at, settings_applied_version, settings_applied_at
       FROM device_diagnostics WHERE device_id = $1`,
      [deviceId],
    );
    const row = rows[0];
    if (!row) return { logLines: [], settingsVersion: '', settingsAppliedVersion: '' };
    return {
      ...(row.log_requested_at ? { logRequestedAt: row.log_requested_at } : {}),
      ...(row.log_received_at ? { logReceivedAt: row.log_received_at } : {}),
      logLines: row.log_lines,
      settingsVersion: row.settings_version,
      ...(row.settings_sent_at ? { settingsSentAt: row.settings_sent_at } : {}),
      settingsAppliedVersion: row.settings_applied_version,
      ...(row.settings_applied_at ? { settingsAppliedAt: row.settings_applied_at } : {}),
    };
  }

  logRequested(deviceId: string, at: Date): Promise<void> {
    return this.set(deviceId, 'log_requested_at = $2', [at]);
  }

  logReceived(deviceId: string, lines: string[], at: Date): Promise<void> {
    return this.set(deviceId, 'log_received_at = $2, log_lines = $3', [at, JSON.stringify(lines)]);
  }

  settingsSent(deviceId: string, version: string, at: Date): Promise<void> {
    return this.set(deviceId, 'settings_version = $2, settings_sent_at = $3', [version, at]);
  }

  settingsApplied(deviceId: string, version: string, at: Date): Promise<void> {
    return this.set(deviceId, 'settings_applied_version = $2, settings_applied_at = $3', [version, at]);
  }

  /**
   * Opens a low-battery episode: true only for the call that opened it (the one that warns), so
   * that the phone's later samples, on this replica or another, warn no more.
   */
  async openBatteryEpisode(deviceId: string, at: Date): Promise<boolean> {
    await this.pool.query(`INSERT INTO device_diagnostics (device_id) VALUES ($1) ON CONFLICT (device_id) DO NOTHING`, [deviceId]);
    const { rowCount } = await this.pool.query(
      `UPDATE device_diagnostics SET battery_low_warned_at = $2 WHERE device_id = $1 AND battery_low_warned_at IS NULL`,
      [deviceId, at],
    );
    return rowCount === 1;
  }

  async closeBatteryEpisode(deviceId: string): Promise<void> {
    await this.pool.query(
      `UPDATE device_diagnostics SET battery_low_warned_at = NULL WHERE device_id = $1 AND battery_low_warned_at IS NOT NULL`,
      [deviceId],
    );
  }
}
