// The SIMs' health (table sim_health, migration 009) and the owner's thresholds (devices.sim_health_settings).
import type { Pool } from '@smsgw/platform';
import { SIM_RESULTS, type SimHealth, type SimHealthSettings, type SimResult } from '../domain/sim-health';

interface SimHealthRow {
  device_id: string;
  slot: number;
  state: SimHealth['state'];
  reason: string;
  since: Date | null;
  probe_after: Date | null;
  recent: unknown;
}

const resultsOf = (value: unknown): SimResult[] =>
  Array.isArray(value) ? (value as unknown[]).filter((r): r is SimResult => SIM_RESULTS.includes(r as SimResult)) : [];

const healthOf = (row: SimHealthRow): SimHealth => ({
  slot: row.slot,
  state: row.state,
  reason: row.reason === 'consecutive_failures' || row.reason === 'failure_ratio' ? row.reason : '',
  ...(row.since ? { since: row.since.getTime() } : {}),
  ...(row.probe_after ? { probeAfter: row.probe_after.getTime() } : {}),
  recent: resultsOf(row.recent),
});

const dateOrNull = (ms: number | undefined) => (ms === undefined ? null : new Date(ms));

export class SimHealthRepository {
  constructor(private readonly pool: Pool) {}

  /** Each device's SIMs' health, by device then slot (a SIM never recorded is healthy and absent). */
  async of(deviceIds: string[]): Promise<Map<string, SimHealth[]>> {
    const out = new Map<string, SimHealth[]>();
    if (deviceIds.length === 0) return out;
    const { rows } = await this.pool.query<SimHealthRow>(
      'SELECT device_id, slot, state, reason, since, probe_after, recent FROM sim_health WHERE device_id = ANY($1) ORDER BY device_id, slot',
      [deviceIds],
    );
    for (const row of rows) {
      const list = out.get(row.device_id) ?? [];
      list.push(healthOf(row));
      out.set(row.device_id, list);
    }
    return out;
  }

  /** Every SIM not healthy now, by device (a handful: what the automatic choice skips). */
  async unhealthy(): Promise<Map<string, SimHealth[]>> {
    const { rows } = await this.pool.query<SimHealthRow>(
      "SELECT device_id, slot, state, reason, since, probe_after, '[]'::jsonb AS recent FROM sim_health WHERE state <> 'healthy'",
    );
    const out = new Map<string, SimHealth[]>();
    for (const row of rows) out.set(row.device_id, [...(out.get(row.device_id) ?? []), healthOf(row)]);
    return out;
  }

  /**
   * Writes SIMs' health, many in one statement: with `withState`, all of it (a change of state);
   * else only the recent results, so that a release by hand written meanwhile is not undone.
   */
  async save(entries: { deviceId: string; health: SimHealth }[], withState: boolean): Promise<void> {
    if (entries.length === 0) return;
    const onConflict = withState
      ? 'state = EXCLUDED.state, reason = EXCLUDED.reason, since = EXCLUDED.since, probe_after = EXCLUDED.probe_after, recent = EXCLUDED.recent'
      : 'recent = EXCLUDED.recent';
    await this.pool.query(
      `INSERT INTO sim_health (device_id, slot, state, reason, since, probe_after, recent, updated_at)
       SELECT d, s, st, r, si, pa, re::jsonb, now()
       FROM unnest($1::text[], $2::smallint[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::text[])
         AS t(d, s, st, r, si, pa, re)
       WHERE EXISTS (SELECT 1 FROM devices WHERE device_id = d)
       ON CONFLICT (device_id, slot) DO UPDATE SET ${onConflict}, updated_at = now()`,
      [
        entries.map((e) => e.deviceId),
        entries.map((e) => e.health.slot),
        entries.map((e) => e.health.state),
        entries.map((e) => e.health.reason),
        entries.map((e) => dateOrNull(e.health.since)),
        entries.map((e) => dateOrNull(e.health.probeAfter)),
        entries.map((e) => JSON.stringify(e.health.recent)),
      ],
    );
  }

  /** Releases a SIM by hand; true when it was not healthy. */
  async release(deviceId: string, slot: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE sim_health SET state = 'healthy', reason = '', since = NULL, probe_after = NULL, recent = '[]', updated_at = now()
       WHERE device_id = $1 AND slot = $2 AND state <> 'healthy'`,
      [deviceId, slot],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The phone's own thresholds; `{}`: it follows its account's. */
  async setSettings(deviceId: string, settings: SimHealthSettings | Record<string, never>): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE devices SET sim_health_settings = $2 WHERE device_id = $1 AND removed_at IS NULL', [
      deviceId,
      JSON.stringify(settings),
    ]);
    return (rowCount ?? 0) > 0;
  }
}
