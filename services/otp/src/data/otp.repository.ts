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
  idempotency_key: string | null;
  request_hash: string | null;
  /** The SMS text, sealed, while its SMS is not known to be stored (only for a request with an Idempotency-Key). */
  sealed_text: Buffer | null;
  /** When the message service confirmed the SMS stored. */
  sms_stored_at: Date | null;
}

export interface NewOtp {
  otpId: string;
  clientId: string;
  mode: Mode;
  codeHash: Buffer;
  expiresAt: Date;
  messageId: string;
  /** Null without an Idempotency-Key: no retry could ever complete the OTP, so its text is not kept. */
  sealedText: Buffer | null;
  idempotency: { key: string; requestHash: string } | null;
}

/** What the caller decided about a locked OTP: mark it verified, count a wrong code, or change nothing (it throws). */
export type VerifyDecision = 'verify' | 'wrong';

export class OtpRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Stores a new OTP with the id of its SMS-to-be and its sealed text. False
   * when another OTP of the client already holds the Idempotency-Key (a
   * concurrent request with the same key).
   */
  async insert(otp: NewOtp): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO otps (otp_id, client_id, mode, code_hash, expires_at, message_id, sealed_text, idempotency_key, request_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (client_id, mode, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
      [
        otp.otpId,
        otp.clientId,
        otp.mode,
        otp.codeHash,
        otp.expiresAt,
        otp.messageId,
        otp.sealedText,
        otp.idempotency?.key ?? null,
        otp.idempotency?.requestHash ?? null,
      ],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * The OTP made by an earlier request with this Idempotency-Key, if it is
   * younger than `ttlSeconds`; an older one lets the key go (it is free again).
   */
  async byIdempotencyKey(
    clientId: string,
    mode: Mode,
    key: string,
    ttlSeconds: number,
  ): Promise<(OtpRow & { expired: boolean }) | undefined> {
    await this.pool.query(
      `UPDATE otps SET idempotency_key = NULL WHERE client_id = $1 AND mode = $2 AND idempotency_key = $3 AND created_at < now() - make_interval(secs => $4)`,
      [clientId, mode, key, ttlSeconds],
    );
    const { rows } = await this.pool.query<OtpRow & { expired: boolean }>(
      'SELECT *, expires_at <= now() AS expired FROM otps WHERE client_id = $1 AND mode = $2 AND idempotency_key = $3',
      [clientId, mode, key],
    );
    return rows[0];
  }

  /** The SMS is stored: its sealed text is erased. */
  async smsStored(otpId: string): Promise<void> {
    await this.pool.query('UPDATE otps SET sealed_text = NULL, sms_stored_at = coalesce(sms_stored_at, now()) WHERE otp_id = $1', [otpId]);
  }

  /**
   * Forgets an OTP whose SMS was never stored and can no longer be (expired,
   * or its text gone), unless a concurrent retry meanwhile stored it.
   */
  async forgetUnsent(otpId: string): Promise<void> {
    await this.pool.query('DELETE FROM otps WHERE otp_id = $1 AND sms_stored_at IS NULL AND (sealed_text IS NULL OR expires_at <= now())', [
      otpId,
    ]);
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

  /**
   * Erases the sealed texts of expired OTPs: their SMS can no longer be
   * sent, so nothing needs them. Returns how many were erased.
   */
  async eraseExpiredSeals(): Promise<number> {
    const { rowCount } = await this.pool.query('UPDATE otps SET sealed_text = NULL WHERE sealed_text IS NOT NULL AND expires_at <= now()');
    return rowCount ?? 0;
  }

  /**
   * Deletes OTPs that expired more than `hours` ago, and erases the sealed
   * text of those that expired; returns how many were deleted.
   */
  async purgeExpired(hours: number): Promise<number> {
    await this.eraseExpiredSeals();
    const { rowCount } = await this.pool.query('DELETE FROM otps WHERE expires_at < now() - make_interval(hours => $1)', [hours]);
    return rowCount ?? 0;
  }
}
