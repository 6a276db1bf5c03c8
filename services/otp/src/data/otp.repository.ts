import { inTransaction, type Pool } from '@smsgw/platform';

export type Mode = 'live' | 'test';

export interface OtpRow {
  otp_id: string;
  client_id: string;
  mode: Mode;
  code_hash: Buffer;
  message_id: string | null;
  expires_at: Date;
  attempts: number;
  verified_at: Date | null;
  created_at: Date;
}

/** What the caller decided about a locked OTP: mark it verified, count a wrong code, or change nothing (it throws). */
export type VerifyDecision = 'verify' | 'wrong';

export class OtpRepository {
  constructor(private readonly pool: Pool) {}

  async insert(otp: { otpId: string; clientId: string; mode: Mode; codeHash: Buffer; expiresAt: Date }): Promise<void> {
    await this.pool.query('INSERT INTO otps (otp_id, client_id, mode, code_hash, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      otp.otpId,
      otp.clientId,
      otp.mode,
      otp.codeHash,
      otp.expiresAt,
    ]);
  }

  async setMessage(otpId: string, messageId: string): Promise<void> {
    await this.pool.query('UPDATE otps SET message_id = $2 WHERE otp_id = $1', [otpId, messageId]);
  }

  /** Forgets an OTP whose SMS could not be queued: it was never given to anyone. */
  async delete(otpId: string): Promise<void> {
    await this.pool.query('DELETE FROM otps WHERE otp_id = $1', [otpId]);
  }

  /**
   * One verify as one transaction: the OTP's row is locked (FOR UPDATE), so
   * concurrent verifies of one OTP take turns and each sees the previous
   * one's result; `decide` compares the code (in constant time, in Node:
   * Postgres has no constant-time comparison) and applies the rules, then
   * the row is updated and committed. Undefined when the OTP is not the
   * client's (in this mode) or does not exist.
   */
  async verify<T>(
    clientId: string,
    mode: Mode,
    otpId: string,
    decide: (row: OtpRow & { expired: boolean }) => { decision: VerifyDecision; result: T },
  ): Promise<{ result: T; row: OtpRow } | undefined> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<OtpRow & { expired: boolean }>(
        'SELECT *, expires_at <= now() AS expired FROM otps WHERE otp_id = $1 AND client_id = $2 AND mode = $3 FOR UPDATE',
        [otpId, clientId, mode],
      );
      if (!rows[0]) return undefined;
      const { decision, result } = decide(rows[0]);
      const updated = await client.query<OtpRow>(
        decision === 'verify'
          ? 'UPDATE otps SET verified_at = now() WHERE otp_id = $1 AND verified_at IS NULL RETURNING *'
          : 'UPDATE otps SET attempts = attempts + 1 WHERE otp_id = $1 AND attempts < 3 RETURNING *',
        [otpId],
      );
      // The row is locked, so the guards above always hold; they are the database's own check.
      if (!updated.rows[0]) throw new Error(`OTP ${otpId} changed under its lock`);
      return { result, row: updated.rows[0] };
    });
  }

  /** Deletes OTPs that expired more than `hours` ago; returns how many. */
  async purgeExpired(hours: number): Promise<number> {
    const { rowCount } = await this.pool.query("DELETE FROM otps WHERE expires_at < now() - make_interval(hours => $1)", [hours]);
    return rowCount ?? 0;
  }
}
