// A device as the hub's SQL returns it, and the readers of its limits and SIMs.
import type { DeviceLimits } from '../domain/limits';
import { simsOf, type SimInfo } from '../domain/sims';

export interface DeviceRow {
  device_id: string;
  client_id: string;
  name: string;
  /** Null once the device's credentials are revoked. */
  password_hash: Buffer | null;
  created_at: Date;
  last_seen_at: Date | null;
  limit_per_minute: number;
  limit_per_hour: number;
  limit_per_day: number;
  min_interval_ms: number;
  max_interval_ms: number;
  sending_hours_start: string;
  sending_hours_end: string;
  time_zone: string;
  /** What the phone reported when it last connected (jsonb; read it with `simsOfRow`). */
  sims: unknown;
  /** The phone's own SIM health thresholds (jsonb; `{}`: it follows its account's; read them with `simHealthOfRow`). */
  sim_health_settings: unknown;
  /** Its account's thresholds (fleet_settings.sim_health; null: none saved). Absent from rows built by hand. */
  fleet_sim_health?: unknown;
}

/** A device as the failover sweep sees it: removed ones too. */
export interface SweptDeviceRow {
  device_id: string;
  client_id: string;
  created_at: Date;
  last_seen_at: Date | null;
  removed_at: Date | null;
}

/** The columns of a DeviceRow, in the order of its fields. */
export const COLUMN_NAMES = [
  'device_id',
  'client_id',
  'name',
  'password_hash',
  'created_at',
  'last_seen_at',
  'limit_per_minute',
  'limit_per_hour',
  'limit_per_day',
  'min_interval_ms',
  'max_interval_ms',
  'sending_hours_start',
  'sending_hours_end',
  'time_zone',
  'sims',
  'sim_health_settings',
];
/** The account's SIM health thresholds of the device in `table` (a sub-select: every query of a DeviceRow carries them). */
export const fleetSimHealthColumn = (table: string) =>
  `(SELECT f.sim_health FROM fleet_settings f WHERE f.client_id = ${table}.client_id) AS fleet_sim_health`;
export const DEVICE_COLUMNS = [...COLUMN_NAMES, fleetSimHealthColumn('devices')].join(', ');

/** The limits stored on a device row. */
export function limitsOf(row: DeviceRow): DeviceLimits {
  return {
    perMinute: row.limit_per_minute,
    perHour: row.limit_per_hour,
    perDay: row.limit_per_day,
    minIntervalMs: row.min_interval_ms,
    maxIntervalMs: row.max_interval_ms,
    sendingHoursStart: row.sending_hours_start,
    sendingHoursEnd: row.sending_hours_end,
    timeZone: row.time_zone,
  };
}

/** The SIMs stored on a device row, ordered by slot (empty: unknown). */
export const simsOfRow = (row: Pick<DeviceRow, 'sims'>): SimInfo[] => simsOf(row.sims);
