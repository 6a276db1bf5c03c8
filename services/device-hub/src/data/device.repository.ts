import type { Pool } from '@smsgw/platform';

export interface DeviceRow {
  device_id: string;
  client_id: string;
  name: string;
  password_hash: Buffer;
  created_at: Date;
  last_seen_at: Date | null;
}

const DEVICE_COLUMNS = 'device_id, client_id, name, password_hash, created_at, last_seen_at';

export class DeviceRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Inserts the device; undefined, inserting nothing, when its password lookup is already taken
   * among its client's devices or its pairing code lookup anywhere (the caller draws again).
   */
  async create(device: {
    deviceId: string;
    clientId: string;
    name: string;
    passwordLookup: string;
    passwordHash: Buffer;
    pairingCodeLookup: string;
    pairingCodeHash: Buffer;
    pairingExpiresAt: Date;
  }): Promise<DeviceRow | undefined> {
    const { rows } = await this.pool.query<DeviceRow>(
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
  }

  async find(deviceId: string): Promise<DeviceRow | undefined> {
    const { rows } = await this.pool.query<DeviceRow>(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_id = $1 AND removed_at IS NULL`, [
      deviceId,
    ]);
    return rows[0];
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

  async insertToken(token: { tokenId: string; deviceId: string; lookup: string; hash: Buffer }): Promise<void> {
    await this.pool.query('INSERT INTO device_tokens (token_id, device_id, lookup, token_hash) VALUES ($1, $2, $3, $4)', [
      token.tokenId,
      token.deviceId,
      token.lookup,
      token.hash,
    ]);
  }

  async findToken(lookup: string): Promise<{ token_hash: Buffer; revoked_at: Date | null; device: DeviceRow } | undefined> {
    const { rows } = await this.pool.query<DeviceRow & { token_hash: Buffer; revoked_at: Date | null }>(
      `SELECT t.token_hash, t.revoked_at, d.device_id, d.client_id, d.name, d.password_hash, d.created_at, d.last_seen_at
       FROM device_tokens t JOIN devices d USING (device_id) WHERE t.lookup = $1 AND d.removed_at IS NULL`,
      [lookup],
    );
    const row = rows[0];
    return row && { token_hash: row.token_hash, revoked_at: row.revoked_at, device: row };
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

  async touch(deviceId: string): Promise<void> {
    await this.pool.query('UPDATE devices SET last_seen_at = now() WHERE device_id = $1', [deviceId]);
  }
}
