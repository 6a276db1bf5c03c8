// An account's settings for all its phones (table fleet_settings, migration 010) and the offline
// warning's state of each phone (device_diagnostics.offline_warned_at).
import type { Pool } from '@smsgw/platform';
import type { SimHealthSettings } from '../domain/sim-health';

/** What an account saved; undefined fields: it saved none (the hub's defaults). */
export interface StoredFleetSettings {
  /** Null: the hub's default; 0: no warning. */
  offlineAlertSeconds: number | null;
  /** The keys the account set (jsonb; read with `simHealthSettingsOf`). */
  simHealth: unknown;
}

/** A phone offline long enough to be looked at, with its account's delay. */
export interface OfflineCandidate {
  device_id: string;
  client_id: string;
  name: string;
  last_seen_at: Date;
  /** The account's delay before the warning, in seconds (its own or the hub's default; never 0). */
  alert_seconds: number;
}

export class FleetSettingsRepository {
  constructor(private readonly pool: Pool) {}

  async get(clientId: string): Promise<StoredFleetSettings> {
    const { rows } = await this.pool.query<{ offline_alert_seconds: number | null; sim_health: unknown }>(
      'SELECT offline_alert_seconds, sim_health FROM fleet_settings WHERE client_id = $1',
      [clientId],
    );
    return { offlineAlertSeconds: rows[0]?.offline_alert_seconds ?? null, simHealth: rows[0]?.sim_health ?? {} };
  }

  async set(clientId: string, offlineAlertSeconds: number, simHealth: SimHealthSettings): Promise<void> {
    await this.pool.query(
      `INSERT INTO fleet_settings (client_id, offline_alert_seconds, sim_health) VALUES ($1, $2, $3)
       ON CONFLICT (client_id) DO UPDATE SET offline_alert_seconds = $2, sim_health = $3, updated_at = now()`,
      [clientId, offlineAlertSeconds, JSON.stringify(simHealth)],
    );
  }

  /**
   * The phones not removed, not seen (connecting or going away) for longer than their account's
   * delay, and not warned since they were last seen: one indexed query, after `afterId`, at most
   * `limit`. A phone connected long ago and still online is among them: the caller asks Redis.
   */
  async offlineCandidates(defaultSeconds: number, afterId: string, limit: number): Promise<OfflineCandidate[]> {
    const { rows } = await this.pool.query<OfflineCandidate>(
      `SELECT d.device_id, d.client_id, d.name, d.last_seen_at, coalesce(f.offline_alert_seconds, $1::int) AS alert_seconds
       FROM devices d
       LEFT JOIN fleet_settings f ON f.client_id = d.client_id
       LEFT JOIN device_diagnostics g ON g.device_id = d.device_id
       WHERE d.removed_at IS NULL AND d.last_seen_at IS NOT NULL AND d.device_id > $2
         AND coalesce(f.offline_alert_seconds, $1::int) > 0
         AND d.last_seen_at < now() - make_interval(secs => coalesce(f.offline_alert_seconds, $1::int))
         AND (g.offline_warned_at IS NULL OR g.offline_warned_at < d.last_seen_at)
       ORDER BY d.device_id LIMIT $3`,
      [defaultSeconds, afterId, limit],
    );
    return rows;
  }

  /**
   * Claims the warning of the phone's offline spell (seen last at `lastSeenAt`): true only for the
   * one call, on any replica, that claimed it (the one that warns).
   */
  async claimOfflineWarning(deviceId: string, lastSeenAt: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO device_diagnostics (device_id, offline_warned_at) VALUES ($1, now())
       ON CONFLICT (device_id) DO UPDATE SET offline_warned_at = now()
       WHERE device_diagnostics.offline_warned_at IS NULL OR device_diagnostics.offline_warned_at < $2`,
      [deviceId, lastSeenAt],
    );
    return rowCount === 1;
  }

  /** Gives a claim back (its event could not be published): the next sweep warns. */
  async releaseOfflineWarning(deviceId: string): Promise<void> {
    await this.pool.query('UPDATE device_diagnostics SET offline_warned_at = NULL WHERE device_id = $1', [deviceId]);
  }
}
