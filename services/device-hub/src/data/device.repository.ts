// Over 300 lines: every statement on the devices table and its tokens (create, pair, find by token,
// limits, SIMs, sweeps), on the one column list of device-row.ts.
import { inTransaction, type Pool } from '@smsgw/platform';
import type { DeviceLimits } from '../domain/limits';
import type { SimInfo } from '../domain/sims';
import { COLUMN_NAMES, DEVICE_COLUMNS, fleetSimHealthColumn, type DeviceRow, type SweptDeviceRow } from './device-row';

const UNIQUE_VIOLATION = '23505';

/** A device token found by its lookup, with its device. */
export interface FoundToken {
  token_id: string;
  token_hash: Buffer;
  revoked_at: Date | null;
  device: DeviceRow;
}

export class DeviceRepository {
  constructor(private readonly pool: Pool) {}

  /** The client's devices that are not removed, counted up to `upTo` (what a cap needs to know, at its cost). */
  async countByClient(clientId: string, upTo: number, db: Pick<Pool, 'query'> = this.pool): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM (SELECT 1 FROM devices WHERE client_id = $1 AND removed_at IS NULL LIMIT $2) AS d',
      [clientId, upTo],
    );
    return rows[0]!.n;
  }

  /**
   * Inserts the device; undefined, inserting nothing, when its password lookup is already taken
   * among its client's devices or its pairing code lookup anywhere (the caller draws again);
   * 'full' when the client has `max` devices already (0: no cap). The client's inserts wait for
   * each other (a transaction lock on its id), so that several at once cannot all pass the count.
   */
  async create(
    device: {
      deviceId: string;
      clientId: string;
      name: string;
      passwordLookup: string;
      passwordHash: Buffer;
      pairingCodeLookup: string;
      pairingCodeHash: Buffer;
      pairingExpiresAt: Date;
    },
    max: number,
  ): Promise<DeviceRow | undefined | 'full'> {
    return inTransaction(this.pool, async (tx) => {
      if (max > 0) {
        await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('hub-devices:' || $1, 0))", [device.clientId]);
        if ((await this.countByClient(device.clientId, max, tx)) >= max) return 'full';
      }
      const { rows } = await tx.query<DeviceRow>(
        `INSERT INTO devices (device_id, client_id, name, password_lookup, password_hash, pairing_code_lookup, pairing_code_hash, pairing_expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING ${DEVICE_COLUMNS}`,
        [
          device.deviceId,
          device.clientId,
          device.name,
          device.passwordLookup,
          device.passwordHash,
          device.pairingCodeLookup,
          device.pairingCodeHash,
          device.pairingExpiresAt,
        ],
      );
      return rows[0];
    });
  }

  /**
   * Inserts devices enrolled in bulk: no password (pairing by code only), one statement. Returns
   * those stored; one whose password or code lookup clashed is left out, for the caller to draw again.
   */
  async createMany(
    clientId: string,
    pairingExpiresAt: Date,
    devices: { deviceId: string; name: string; passwordLookup: string; pairingCodeLookup: string; pairingCodeHash: Buffer }[],
  ): Promise<DeviceRow[]> {
    const { rows } = await this.pool.query<DeviceRow>(
      `INSERT INTO devices (device_id, client_id, name, password_lookup, password_hash, pairing_code_lookup, pairing_code_hash, pairing_expires_at)
       SELECT d, $2, n, l, NULL, c, h, $3
         FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::bytea[]) AS t(d, n, l, c, h)
       ON CONFLICT DO NOTHING RETURNING ${DEVICE_COLUMNS}`,
      [
        devices.map((d) => d.deviceId),
        clientId,
        pairingExpiresAt,
        devices.map((d) => d.name),
        devices.map((d) => d.passwordLookup),
        devices.map((d) => d.pairingCodeLookup),
        devices.map((d) => d.pairingCodeHash),
      ],
    );
    return rows;
  }

  async find(deviceId: string): Promise<DeviceRow | undefined> {
    const { rows } = await this.pool.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_id = $1 AND removed_at IS NULL`, [
      deviceId,
    ]);
    return rows[0];
  }

  /** The client of each of these devices that exists, removed ones included. */
  async clientsOf(deviceIds: string[]): Promise<Map<string, string>> {
    if (deviceIds.length === 0) return new Map();
    const { rows } = await this.pool.query<{ device_id: string; client_id: string }>(
      'SELECT device_id, client_id FROM devices WHERE device_id = ANY($1::text[])',
      [deviceIds],
    );
    return new Map(rows.map((r) => [r.device_id, r.client_id]));
  }

  /** Those of `deviceIds` that are the client's and not removed, in creation order. */
  async findOfClient(clientId: string, deviceIds: string[]): Promise<DeviceRow[]> {
    if (deviceIds.length === 0) return [];
    const { rows } = await this.pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_id = ANY($2::text[]) AND client_id = $1 AND removed_at IS NULL ORDER BY created_at`,
      [clientId, deviceIds],
    );
    return rows;
  }

  async listByClient(clientId: string): Promise<DeviceRow[]> {
    const { rows } = await this.pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices WHERE client_id = $1 AND removed_at IS NULL ORDER BY created_at`,
      [clientId],
    );
    return rows;
  }

  async findByPasswordLookup(clientId: string, lookup: string): Promise<DeviceRow | undefined> {
    const { rows } = await this.pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices WHERE client_id = $1 AND password_lookup = $2 AND removed_at IS NULL`,
      [clientId, lookup],
    );
    return rows[0];
  }

  /** Uses up a pairing code that has not expired: returns its device once, never again. */
  async consumePairingCode(lookup: string, codeHash: Buffer): Promise<DeviceRow | undefined> {
    const { rows } = await this.pool.query<DeviceRow>(
      `UPDATE devices SET pairing_code_lookup = NULL, pairing_code_hash = NULL, pairing_expires_at = NULL
       WHERE pairing_code_lookup = $1 AND pairing_code_hash = $2 AND pairing_expires_at > now() AND removed_at IS NULL
       RETURNING ${DEVICE_COLUMNS}`,
      [lookup, codeHash],
    );
    return rows[0];
  }

  /** Stores a pairing's token as the device's only good one: its earlier tokens are revoked in the same statement's transaction. */
  async insertOnlyToken(token: { tokenId: string; deviceId: string; lookup: string; hash: Buffer }): Promise<void> {
    await this.pool.query(
      `WITH earlier AS (UPDATE device_tokens SET revoked_at = now() WHERE device_id = $2 AND revoked_at IS NULL)
       INSERT INTO device_tokens (token_id, device_id, lookup, token_hash) VALUES ($1, $2, $3, $4)`,
      [token.tokenId, token.deviceId, token.lookup, token.hash],
    );
  }

  /** The tokens of these lookups that exist, with their devices not removed: one query for a whole batch of connecting phones. */
  async findTokens(lookups: string[]): Promise<Map<string, FoundToken>> {
    const { rows } = await this.pool.query<DeviceRow & FoundToken & { lookup: string }>(
      `SELECT t.lookup, t.token_id, t.token_hash, t.revoked_at, ${COLUMN_NAMES.map((c) => `d.${c}`).join(', ')}, ${fleetSimHealthColumn('d')}
       FROM device_tokens t JOIN devices d USING (device_id) WHERE t.lookup = ANY($1::text[]) AND d.removed_at IS NULL`,
      [lookups],
    );
    return new Map(
      rows.map(({ lookup, token_id, token_hash, revoked_at, ...device }) => [lookup, { token_id, token_hash, revoked_at, device }]),
    );
  }

  async rename(deviceId: string, name: string): Promise<void> {
    await this.pool.query('UPDATE devices SET name = $2 WHERE device_id = $1 AND removed_at IS NULL', [deviceId, name]);
  }

  /** Removes the device: its tokens are revoked and its pairing code voided in the same statement's transaction. */
  async remove(deviceId: string): Promise<void> {
    await this.pool.query(
      `WITH d AS (UPDATE devices SET removed_at = now(), pairing_code_lookup = NULL, pairing_code_hash = NULL, pairing_expires_at = NULL
                  WHERE device_id = $1 AND removed_at IS NULL RETURNING device_id)
       UPDATE device_tokens SET revoked_at = now() WHERE device_id IN (SELECT device_id FROM d) AND revoked_at IS NULL`,
      [deviceId],
    );
  }

  async revokeTokens(deviceId: string): Promise<number> {
    const result = await this.pool.query('UPDATE device_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL', [
      deviceId,
    ]);
    return result.rowCount ?? 0;
  }

  /** Of these tokens, the ones still good: not revoked, of a device not removed. */
  async liveTokens(tokenIds: string[]): Promise<Set<string>> {
    if (tokenIds.length === 0) return new Set();
    const { rows } = await this.pool.query<{ token_id: string }>(
      `SELECT t.token_id FROM device_tokens t JOIN devices d USING (device_id)
       WHERE t.token_id = ANY($1) AND t.revoked_at IS NULL AND d.removed_at IS NULL`,
      [tokenIds],
    );
    return new Set(rows.map((r) => r.token_id));
  }

  /**
   * New credentials for the device, in one transaction: a new password and pairing code, every
   * token revoked. False, changing nothing, when the password lookup clashes within the client or
   * the pairing code lookup anywhere (the caller draws again), or the device is gone.
   */
  async rotateCredentials(
    deviceId: string,
    next: { passwordLookup: string; passwordHash: Buffer; pairingCodeLookup: string; pairingCodeHash: Buffer; pairingExpiresAt: Date },
  ): Promise<boolean> {
    try {
      return await inTransaction(this.pool, async (tx) => {
        const updated = await tx.query(
          `UPDATE devices SET password_lookup = $2, password_hash = $3, pairing_code_lookup = $4, pairing_code_hash = $5, pairing_expires_at = $6
           WHERE device_id = $1 AND removed_at IS NULL`,
          [deviceId, next.passwordLookup, next.passwordHash, next.pairingCodeLookup, next.pairingCodeHash, next.pairingExpiresAt],
        );
        if ((updated.rowCount ?? 0) === 0) return false;
        await tx.query('UPDATE device_tokens SET revoked_at = now() WHERE device_id = $1 AND revoked_at IS NULL', [deviceId]);
        return true;
      });
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) return false;
      throw err;
    }
  }

  /** Voids the device's password and pairing code and revokes its tokens; how many tokens were revoked. */
  async revokeCredentials(deviceId: string): Promise<number> {
    const result = await this.pool.query(
      `WITH d AS (UPDATE devices SET password_hash = NULL, pairing_code_lookup = NULL, pairing_code_hash = NULL, pairing_expires_at = NULL
                  WHERE device_id = $1 AND removed_at IS NULL RETURNING device_id)
       UPDATE device_tokens SET revoked_at = now() WHERE device_id IN (SELECT device_id FROM d) AND revoked_at IS NULL`,
      [deviceId],
    );
    return result.rowCount ?? 0;
  }

  /** Replaces a password hash of before by its scrypt one, unless it changed meanwhile. */
  async upgradePasswordHash(deviceId: string, previous: Buffer, next: Buffer): Promise<void> {
    await this.pool.query('UPDATE devices SET password_hash = $3 WHERE device_id = $1 AND password_hash = $2', [deviceId, previous, next]);
  }

  /** Stores the device's limits; false when it is gone. */
  async setLimits(deviceId: string, limits: DeviceLimits): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE devices SET limit_per_minute = $2, limit_per_hour = $3, limit_per_day = $4, min_interval_ms = $5, max_interval_ms = $6,
              sending_hours_start = $7, sending_hours_end = $8, time_zone = $9
       WHERE device_id = $1 AND removed_at IS NULL`,
      [
        deviceId,
        limits.perMinute,
        limits.perHour,
        limits.perDay,
        limits.minIntervalMs,
        limits.maxIntervalMs,
        limits.sendingHoursStart,
        limits.sendingHoursEnd,
        limits.timeZone,
      ],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Stores the SIMs the phone reported at its connection; false when the device is gone. */
  async setSims(deviceId: string, sims: SimInfo[]): Promise<boolean> {
    const result = await this.pool.query('UPDATE devices SET sims = $2 WHERE device_id = $1 AND removed_at IS NULL', [
      deviceId,
      JSON.stringify(sims),
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  /** A page of every device's id, removed ones included, in id order after `afterId` (the failover sweep's full pass). */
  async idsAfter(afterId: string, limit: number): Promise<string[]> {
    const { rows } = await this.pool.query<{ device_id: string }>(
      'SELECT device_id FROM devices WHERE device_id > $1 ORDER BY device_id LIMIT $2',
      [afterId, limit],
    );
    return rows.map((r) => r.device_id);
  }

  /** These devices, removed ones included (the failover sweep releases a removed one's messages). */
  async findForSweep(deviceIds: string[]): Promise<SweptDeviceRow[]> {
    if (deviceIds.length === 0) return [];
    const { rows } = await this.pool.query<SweptDeviceRow>(
      'SELECT device_id, client_id, created_at, last_seen_at, removed_at FROM devices WHERE device_id = ANY($1)',
      [deviceIds],
    );
    return rows;
  }

  /** Records these devices as seen now. */
  async touch(deviceIds: string[]): Promise<void> {
    if (deviceIds.length === 0) return;
    await this.pool.query('UPDATE devices SET last_seen_at = now() WHERE device_id = ANY($1)', [deviceIds]);
  }

  /** These devices as stored now, removed ones left out (a replica reads its phones' limits again with it). */
  async findMany(deviceIds: string[]): Promise<DeviceRow[]> {
    if (deviceIds.length === 0) return [];
    const { rows } = await this.pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_id = ANY($1) AND removed_at IS NULL`,
      [deviceIds],
    );
    return rows;
  }
}
