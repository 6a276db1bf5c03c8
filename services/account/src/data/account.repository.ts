// Over 300 lines: every statement on the account tables (clients, API keys, users, e-mail tokens);
// several use cases join them in one transaction, which one repository keeps in one place.
import { inTransaction, type Pool } from '@smsgw/platform';
import type { KeyMode, NewKeyRow } from '../domain/api-key';
import type { Role } from '../domain/roles';
import { insertAuditEvent } from './audit.repository';

export interface ClientRow {
  client_id: string;
  email: string;
  name: string;
  signing_secret: string;
  created_at: Date;
  email_verified_at: Date | null;
  /** When the account proved it holds its owner's address (migration 006); null: not yet. */
  account_verified_at: Date | null;
  default_ttl_seconds: number;
  failover_delay_seconds: number;
  /** 'round_robin' or 'default' (domain/sim-rule.ts). */
  sim_rule: string;
  default_sim: number;
  /** Destination countries of ordinary sends and of OTPs (empty: every country), special number types OTPs may reach. */
  sms_countries: string[];
  otp_countries: string[];
  otp_number_types: string[];
  /** Whether every member signs in with a second factor (migration 011). */
  require_two_factor: boolean;
}

export interface ApiKeyRow {
  key_id: string;
  client_id: string;
  mode: KeyMode;
  key_hash: Buffer;
  expires_at: Date | null;
  revoked_at: Date | null;
  default_ttl_seconds: number;
  /** Whether the key's account proved its address (live keys wait for it). */
  account_verified: boolean;
  sms_countries: string[];
  otp_countries: string[];
  otp_number_types: string[];
  /** The key's limits (migration 008): empty scopes, every scope; empty ranges, any address; quota 0, none. */
  scopes: string[];
  ip_ranges: string[];
  daily_quota: number;
}

export type NewApiKey = NewKeyRow;

export interface UserRow {
  user_id: string;
  email: string;
  password_hash: string;
  client_id: string;
  created_at: Date;
  /** 'owner', 'admin', 'developer' or 'support' (migration 010, domain/roles.ts). */
  role: Role;
  /** The TOTP secret (migration 011): enrolling while totp_enabled_at is null, in use once set. */
  totp_secret: Buffer | null;
  totp_enabled_at: Date | null;
  totp_last_step: string;
  /** Whether the account requires a second factor (read with the user by findUser and findUserByEmail). */
  require_two_factor?: boolean;
}

export interface KeyListRow {
  key_id: string;
  mode: KeyMode;
  label: string;
  lookup: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  scopes: string[];
  ip_ranges: string[];
  daily_quota: number;
  /** The creator's e-mail; null for the operator tool's keys and keys made before creators were recorded. */
  created_by_email: string | null;
}

export type EmailTokenPurpose = 'verify_email' | 'reset_password';

/** A sign-up with an e-mail that already has a user. */
export class EmailTakenError extends Error {
  override readonly name = 'EmailTakenError';
}

export class AccountRepository {
  constructor(private readonly pool: Pool) {}

  async createClient(
    client: { clientId: string; email: string; name: string; signingSecret: string; emailVerified: boolean },
    keys: NewApiKey[],
    user?: { userId: string; passwordHash: string },
  ): Promise<void> {
    await inTransaction(this.pool, async (db) => {
      // An address the operator gives is the account's proof too (email_verified_at and account_verified_at together).
      await db.query(
        `INSERT INTO clients (client_id, email, name, signing_secret, email_verified_at, account_verified_at)
         VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END, CASE WHEN $5 THEN now() END)`,
        [client.clientId, client.email, client.name, client.signingSecret, client.emailVerified],
      );
      for (const key of keys) await this.insertKey(db, key);
      if (user) {
        const inserted = await db.query(
          'INSERT INTO users (user_id, email, password_hash, client_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
          [user.userId, client.email, user.passwordHash, client.clientId],
        );
        // The e-mail has a user already: the transaction is undone, nothing of this sign-up stays.
        if (!inserted.rowCount) throw new EmailTakenError();
      }
      const actor = user ? { actorUserId: user.userId, actor: client.email } : { actor: 'operator' };
      for (const key of keys) {
        await insertAuditEvent(db, {
          clientId: client.clientId,
          ...actor,
          address: '',
          action: 'key.created',
          target: key.keyId,
          details: { label: key.label, mode: key.mode, scopes: key.scopes, ip_ranges: key.ipRanges, daily_quota: key.dailyQuota },
        });
      }
    });
  }

  async findUserByEmail(email: string): Promise<UserRow | undefined> {
    const { rows } = await this.pool.query<UserRow>(
      `SELECT u.*, c.require_two_factor FROM users u JOIN clients c ON c.client_id = u.client_id
       WHERE lower(u.email) = lower($1) AND u.removed_at IS NULL`,
      [email],
    );
    return rows[0];
  }

  /** The client's first owner: the user it was signed up with, or the oldest owner left (an operator's client has none). */
  async findOwner(clientId: string): Promise<UserRow | undefined> {
    const { rows } = await this.pool.query<UserRow>(
      `SELECT * FROM users WHERE client_id = $1 AND role = 'owner' AND removed_at IS NULL ORDER BY created_at LIMIT 1`,
      [clientId],
    );
    return rows[0];
  }

  /** A member of an account; undefined once removed. */
  async findUser(userId: string): Promise<UserRow | undefined> {
    const { rows } = await this.pool.query<UserRow>(
      `SELECT u.*, c.require_two_factor FROM users u JOIN clients c ON c.client_id = u.client_id
       WHERE u.user_id = $1 AND u.removed_at IS NULL`,
      [userId],
    );
    return rows[0];
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.pool.query('UPDATE users SET password_hash = $2 WHERE user_id = $1', [userId, passwordHash]);
  }

  /** A changed address is no longer verified (the same one, in any case, stays as it was). */
  async updateClient(
    clientId: string,
    change: {
      email?: string;
      name?: string;
      defaultTtlSeconds?: number;
      failoverDelaySeconds?: number;
      simRule?: string;
      defaultSim?: number;
      smsCountries?: readonly string[];
      otpCountries?: readonly string[];
      otpNumberTypes?: readonly string[];
    },
  ): Promise<ClientRow | undefined> {
    const { rows } = await this.pool.query<ClientRow>(
      `UPDATE clients SET email = COALESCE($2, email), name = COALESCE($3, name),
         email_verified_at = CASE WHEN $2::text IS NULL OR lower($2) = lower(email) THEN email_verified_at END,
         default_ttl_seconds = COALESCE($4, default_ttl_seconds),
         failover_delay_seconds = COALESCE($5, failover_delay_seconds),
         sim_rule = COALESCE($6, sim_rule),
         default_sim = COALESCE($7, default_sim),
         sms_countries = COALESCE($8, sms_countries),
         otp_countries = COALESCE($9, otp_countries),
         otp_number_types = COALESCE($10, otp_number_types)
       WHERE client_id = $1 RETURNING *`,
      [
        clientId,
        change.email ?? null,
        change.name ?? null,
        change.defaultTtlSeconds ?? null,
        change.failoverDelaySeconds ?? null,
        change.simRule ?? null,
        change.defaultSim ?? null,
        change.smsCountries ?? null,
        change.otpCountries ?? null,
        change.otpNumberTypes ?? null,
      ],
    );
    return rows[0];
  }

  async insertEmailToken(token: {
    hash: Buffer;
    purpose: EmailTokenPurpose;
    clientId: string;
    userId?: string;
    email: string;
    expiresAt: Date;
  }): Promise<void> {
    await this.pool.query(
      'INSERT INTO email_tokens (token_hash, purpose, client_id, user_id, email, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [token.hash, token.purpose, token.clientId, token.userId ?? null, token.email, token.expiresAt],
    );
  }

  /** Uses up a token that is unused and not expired: its row once, never again. */
  async useEmailToken(
    hash: Buffer,
    purpose: EmailTokenPurpose,
  ): Promise<{ client_id: string; user_id: string | null; email: string } | undefined> {
    const { rows } = await this.pool.query<{ client_id: string; user_id: string | null; email: string }>(
      `UPDATE email_tokens SET used_at = now()
       WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
       RETURNING client_id, user_id, email`,
      [hash, purpose],
    );
    return rows[0];
  }

  /**
   * A verification link used for `email`: the client's alert address is verified if it is still
   * `email`, and the account too when `email` is its owner's sign-in address. False when neither.
   */
  async markEmailVerified(clientId: string, email: string): Promise<boolean> {
    const owners = 'EXISTS (SELECT 1 FROM users u WHERE u.client_id = c.client_id AND u.removed_at IS NULL AND lower(u.email) = lower($2))';
    const { rowCount } = await this.pool.query(
      `UPDATE clients c SET
         email_verified_at = CASE WHEN lower(c.email) = lower($2) THEN now() ELSE c.email_verified_at END,
         account_verified_at = CASE WHEN ${owners} THEN coalesce(c.account_verified_at, now()) ELSE c.account_verified_at END
       WHERE c.client_id = $1 AND (lower(c.email) = lower($2) OR ${owners})`,
      [clientId, email],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The operator vouches for the account's address; false when there is no such client. */
  async markAccountVerified(clientId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE clients SET account_verified_at = coalesce(account_verified_at, now()) WHERE client_id = $1',
      [clientId],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * A new password, and the user's other reset links voided, in one transaction. The reset proves
   * the owner holds the address: when the account was not verified yet, in the same transaction,
   * it is; every key made before is revoked, the signing secret replaced by `newSigningSecret`, the
   * alert address set back to the owner's (verified) and the links mailed before voided: what
   * someone else made with the address is gone. Undefined when the user's e-mail is no longer `email`.
   */
  async resetPassword(
    userId: string,
    email: string,
    passwordHash: string,
    newSigningSecret: string,
  ): Promise<{ firstProof: boolean; revokedKeys: number } | undefined> {
    return inTransaction(this.pool, async (db) => {
      const { rows } = await db.query<{ client_id: string }>(
        'UPDATE users SET password_hash = $3 WHERE user_id = $1 AND lower(email) = lower($2) AND removed_at IS NULL RETURNING client_id',
        [userId, email, passwordHash],
      );
      const clientId = rows[0]?.client_id;
      if (!clientId) return undefined;
      await db.query(`UPDATE email_tokens SET used_at = now() WHERE user_id = $1 AND purpose = 'reset_password' AND used_at IS NULL`, [
        userId,
      ]);
      const proven = await db.query(
        `UPDATE clients SET account_verified_at = now(), email = $2, email_verified_at = now(), signing_secret = $3
         WHERE client_id = $1 AND account_verified_at IS NULL`,
        [clientId, email, newSigningSecret],
      );
      if (!proven.rowCount) return { firstProof: false, revokedKeys: 0 };
      // Each key revoked is in the audit log, with the user whose reset proved the address.
      const revoked = await db.query(
        `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE client_id = $1 AND revoked_at IS NULL RETURNING key_id)
         INSERT INTO audit_events (client_id, actor_user_id, actor, action, target, details)
         SELECT $1, $2, $3, 'key.revoked', key_id, '{"reason": "first_proof"}' FROM revoked`,
        [clientId, userId, email],
      );
      await db.query('UPDATE email_tokens SET used_at = now() WHERE client_id = $1 AND used_at IS NULL', [clientId]);
      return { firstProof: true, revokedKeys: revoked.rowCount ?? 0 };
    });
  }

  async listKeys(clientId: string): Promise<KeyListRow[]> {
    const { rows } = await this.pool.query<KeyListRow>(
      `SELECT k.key_id, k.mode, k.label, k.lookup, k.created_at, k.last_used_at, k.revoked_at, k.scopes, k.ip_ranges, k.daily_quota,
              u.email AS created_by_email
       FROM api_keys k LEFT JOIN users u ON u.user_id = k.created_by
       WHERE k.client_id = $1 ORDER BY k.created_at DESC, k.key_id DESC`,
      [clientId],
    );
    return rows;
  }

  /** Revokes a key of this client; the revocation time, or undefined when the key is not the client's. */
  async revokeClientKey(clientId: string, keyId: string): Promise<Date | undefined> {
    const { rows } = await this.pool.query<{ revoked_at: Date }>(
      'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE key_id = $1 AND client_id = $2 RETURNING revoked_at',
      [keyId, clientId],
    );
    return rows[0]?.revoked_at;
  }

  /** Records a use of the key, at most once a minute (the dashboard shows it to the minute). */
  async touchKey(keyId: string): Promise<void> {
    await this.pool.query(
      "UPDATE api_keys SET last_used_at = now() WHERE key_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
      [keyId],
    );
  }

  async setSigningSecret(clientId: string, secret: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE clients SET signing_secret = $2 WHERE client_id = $1', [clientId, secret]);
    return (rowCount ?? 0) > 0;
  }

  async createKey(key: NewApiKey): Promise<void> {
    await this.insertKey(this.pool, key);
  }

  private async insertKey(db: Pick<Pool, 'query'>, key: NewApiKey): Promise<void> {
    await db.query(
      `INSERT INTO api_keys (key_id, client_id, mode, lookup, key_hash, label, scopes, ip_ranges, daily_quota, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [key.keyId, key.clientId, key.mode, key.lookup, key.hash, key.label, key.scopes, key.ipRanges, key.dailyQuota, key.createdBy ?? null],
    );
  }

  async findClient(clientId: string): Promise<ClientRow | undefined> {
    const { rows } = await this.pool.query<ClientRow>('SELECT * FROM clients WHERE client_id = $1', [clientId]);
    return rows[0];
  }

  /** The key with its client's default ttl and destinations, which the gateway keeps with the verified key. */
  async findKeyByLookup(lookup: string): Promise<ApiKeyRow | undefined> {
    const { rows } = await this.pool.query<ApiKeyRow>(
      `SELECT k.key_id, k.client_id, k.mode, k.key_hash, k.expires_at, k.revoked_at, k.scopes, k.ip_ranges, k.daily_quota,
              c.default_ttl_seconds,
              c.account_verified_at IS NOT NULL AS account_verified,
              c.sms_countries, c.otp_countries, c.otp_number_types
       FROM api_keys k JOIN clients c ON c.client_id = k.client_id WHERE k.lookup = $1`,
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
