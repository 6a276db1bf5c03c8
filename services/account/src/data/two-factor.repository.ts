import { inTransaction, type Pool } from '@smsgw/platform';
import { insertAuditEvent, type NewAuditEvent } from './audit.repository';

type Recorded = Omit<NewAuditEvent, 'clientId' | 'action' | 'target' | 'details'>;

/** The members' second factors (migration 011): TOTP secrets, the last step taken, recovery codes. */
export class TwoFactorRepository {
  constructor(private readonly pool: Pool) {}

  /** A new secret to enrol with; refused (false) while a second factor is in use. */
  async beginEnrolment(userId: string, secret: Buffer): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE users SET totp_secret = $2, totp_last_step = 0 WHERE user_id = $1 AND totp_enabled_at IS NULL AND removed_at IS NULL',
      [userId, secret],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The enrolment confirmed by a code of `step`: in use from now on, with its recovery codes. */
  async enable(
    user: { userId: string; clientId: string; email: string },
    step: number,
    codeHashes: Buffer[],
    by: Recorded,
  ): Promise<boolean> {
    return inTransaction(this.pool, async (db) => {
      const { rowCount } = await db.query(
        `UPDATE users SET totp_enabled_at = now(), totp_last_step = $2
         WHERE user_id = $1 AND totp_enabled_at IS NULL AND totp_secret IS NOT NULL AND totp_last_step < $2`,
        [user.userId, step],
      );
      if (!rowCount) return false;
      await db.query('DELETE FROM recovery_codes WHERE user_id = $1', [user.userId]);
      for (const hash of codeHashes) await db.query('INSERT INTO recovery_codes (user_id, code_hash) VALUES ($1, $2)', [user.userId, hash]);
      await insertAuditEvent(db, { clientId: user.clientId, ...by, action: 'two_factor.enabled', target: user.email, details: {} });
      return true;
    });
  }

  /** Takes the step of a code: false when that step (or a later one) was taken already. */
  async takeStep(userId: string, step: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE users SET totp_last_step = $2 WHERE user_id = $1 AND totp_enabled_at IS NOT NULL AND totp_last_step < $2',
      [userId, step],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Uses up a recovery code: false when it is not one of the user's, or was used. */
  async useRecoveryCode(userId: string, hash: Buffer): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'UPDATE recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL',
      [userId, hash],
    );
    return (rowCount ?? 0) > 0;
  }

  async disable(user: { userId: string; clientId: string; email: string }, by: Recorded): Promise<void> {
    await inTransaction(this.pool, async (db) => {
      await db.query('UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = 0 WHERE user_id = $1', [user.userId]);
      await db.query('DELETE FROM recovery_codes WHERE user_id = $1', [user.userId]);
      await insertAuditEvent(db, { clientId: user.clientId, ...by, action: 'two_factor.disabled', target: user.email, details: {} });
    });
  }

  async setRequired(clientId: string, required: boolean, by: Recorded): Promise<void> {
    await inTransaction(this.pool, async (db) => {
      await db.query('UPDATE clients SET require_two_factor = $2 WHERE client_id = $1', [clientId, required]);
      await insertAuditEvent(db, { clientId, ...by, action: 'two_factor.required', target: clientId, details: { required } });
    });
  }

  async required(clientId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ require_two_factor: boolean }>('SELECT require_two_factor FROM clients WHERE client_id = $1', [
      clientId,
    ]);
    return rows[0]?.require_two_factor ?? false;
  }
}
