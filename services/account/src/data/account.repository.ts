import { inTransaction, type Pool } from '@smsgw/platform';
import type { KeyMode } from '../domain/api-key';

export interface ClientRow {
  client_id: string;
  email: string;
  name: string;
  signing_secret: string;
  created_at: Date;
}

export interface ApiKeyRow {
  key_id: string;
  client_id: string;
  mode: KeyMode;
  key_hash: Buffer;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface NewApiKey {
  keyId: string;
  clientId: string;
  mode: KeyMode;
  lookup: string;
  hash: Buffer;
  label: string;
}

export class AccountRepository {
  constructor(private readonly pool: Pool) {}

  async createClient(client: { clientId: string; email: string; name: string; signingSecret: string }, keys: NewApiKey[]): Promise<void> {
    await inTransaction(this.pool, async (db) => {
      await db.query('INSERT INTO clients (client_id, email, name, signing_secret) VALUES ($1, $2, $3, $4)', [
        client.clientId,
        client.email,
        client.name,
        client.signingSecret,
      ]);
      for (const key of keys) await this.insertKey(db, key);
    });
  }

  async createKey(key: NewApiKey): Promise<void> {
    await this.insertKey(this.pool, key);
  }

  private async insertKey(db: Pick<Pool, 'query'>, key: NewApiKey): Promise<void> {
    await db.query('INSERT INTO api_keys (key_id, client_id, mode, lookup, key_hash, label) VALUES ($1, $2, $3, $4, $5, $6)', [
      key.keyId,
      key.clientId,
      key.mode,
      key.lookup,
      key.hash,
      key.label,
    ]);
  }

  async findClient(clientId: string): Promise<ClientRow | undefined> {
    const { rows } = await this.pool.query<ClientRow>('SELECT * FROM clients WHERE client_id = $1', [clientId]);
    return rows[0];
  }

  async findKeyByLookup(lookup: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await this.pool.query<ApiKeyRow>(
      'SELECT key_id, client_id, mode, key_hash, expires_at, revoked_at FROM api_keys WHERE lookup = $1',
      [lookup],
    );
    return rows[0];
  }

  /** Marks the key revoked (keeping the first revocation time) and returns it. */
  async revokeKey(keyId: string): Promise<Date> {
    const { rows } = await this.pool.query<{ revoked_at: Date }>(
      'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_id = $1 RETURNING revoked_at',
      [keyId],
    );
    return rows[0]!.revoked_at;
  }
}
