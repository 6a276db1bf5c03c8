import type { Pool } from '@smsgw/platform';
import type { KeyMode } from '../domain/api-key';
import type { NewSmppCredential, SmppBindType } from '../domain/smpp-credential';

export interface SmppCredentialRow {
  credential_id: string;
  client_id: string;
  system_id: string;
  bind_type: SmppBindType;
  mode: KeyMode;
  label: string;
  device_id: string;
  created_at: Date;
  last_bound_at: Date | null;
  revoked_at: Date | null;
}

/** A credential with what a bind needs of its client. */
export interface SmppBindRow extends SmppCredentialRow {
  password_hash: Buffer;
  account_verified: boolean;
  default_ttl_seconds: number;
  sms_countries: string[];
}

const COLUMNS =
  's.credential_id, s.client_id, s.system_id, s.bind_type, s.mode, s.label, s.device_id, s.created_at, s.last_bound_at, s.revoked_at';

/** The SMPP credentials (migration 015). */
export class SmppCredentialRepository {
  constructor(private readonly pool: Pool) {}

  /** Stores a new credential; false when its system id is taken (the caller draws another). */
  async create(row: NewSmppCredential): Promise<SmppCredentialRow | undefined> {
    const { rows } = await this.pool.query<SmppCredentialRow>(
      `INSERT INTO smpp_credentials AS s (credential_id, client_id, system_id, password_hash, bind_type, mode, label, device_id, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (system_id) DO NOTHING RETURNING ${COLUMNS}`,
      [row.credentialId, row.clientId, row.systemId, row.hash, row.bindType, row.mode, row.label, row.deviceId, row.createdBy ?? null],
    );
    return rows[0];
  }

  async list(clientId: string): Promise<SmppCredentialRow[]> {
    const { rows } = await this.pool.query<SmppCredentialRow>(
      `SELECT ${COLUMNS} FROM smpp_credentials s WHERE s.client_id = $1 ORDER BY s.created_at DESC, s.credential_id DESC`,
      [clientId],
    );
    return rows;
  }

  /** Revokes a credential of this client (keeping the first revocation time); undefined when it is not the client's. */
  async revoke(clientId: string, credentialId: string): Promise<SmppCredentialRow | undefined> {
    const { rows } = await this.pool.query<SmppCredentialRow>(
      `UPDATE smpp_credentials s SET revoked_at = coalesce(revoked_at, now())
       WHERE s.credential_id = $1 AND s.client_id = $2 RETURNING ${COLUMNS}`,
      [credentialId, clientId],
    );
    return rows[0];
  }

  async findBySystemId(systemId: string): Promise<SmppBindRow | undefined> {
    const { rows } = await this.pool.query<SmppBindRow>(
      `SELECT ${COLUMNS}, s.password_hash, c.account_verified_at IS NOT NULL AS account_verified, c.default_ttl_seconds, c.sms_countries
       FROM smpp_credentials s JOIN clients c ON c.client_id = s.client_id WHERE s.system_id = $1`,
      [systemId],
    );
    return rows[0];
  }

  /** Records a bind, at most once a minute. */
  async touch(credentialId: string): Promise<void> {
    await this.pool.query(
      "UPDATE smpp_credentials SET last_bound_at = now() WHERE credential_id = $1 AND (last_bound_at IS NULL OR last_bound_at < now() - interval '1 minute')",
      [credentialId],
    );
  }
}
