import { inTransaction, type Pool } from '@smsgw/platform';
import { MAX_ATTEMPTS } from '../domain/otp-verify';

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
  /** When the message service confirmed the SMS stored; only for a request with an Idempotency-Key (only its retries read it). */
  sms_stored_at: Date | null;
  /** The destination's country (ISO 3166-1 alpha-2, `ZZ` when none); null for OTPs made before it was kept. */
  country: string | null;
  /** The device its SMS was first queued on. */
  device_id: string | null;
  /** The pumping guard's key of its destination prefix (a keyed hash). */
  prefix_key: string | null;
}

/** Every column of `otps`, as the named statements return them: a column a migration adds is not returned until it is named here. */
const OTP_FIELDS: Record<keyof OtpRow, true> = {
  otp_id: true,
  client_id: true,
  mode: true,
  code_hash: true,
  message_id: true,
  expires_at: true,
  attempts: true,
  verified_at: true,
  created_at: true,
  idempotency_key: true,
  request_hash: true,
  sealed_text: true,
  sms_stored_at: true,
  country: true,
  device_id: true,
  prefix_key: true,
};
const OTP_COLUMNS = Object.keys(OTP_FIELDS).join(', ');

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
  country: string;
  deviceId: string;
  prefixKey: string;
}

/** The counts of OTPs of one UTC day and destination country, live rows and rollups alike. */
export interface OtpCountRow {
  day: string;
  country: string;
  sent: number;
  verified: number;
  expired: number;
  failed_attempts: number;
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
    const { rowCount } = await this.pool.query({
      name: 'otps-insert',
      text: `INSERT INTO otps (otp_id, client_id, mode, code_hash, expires_at, message_id, sealed_text, idempotency_key, request_hash,
                               country, device_id, prefix_key)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
             ON CONFLICT (client_id, mode, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
      values: [
        otp.otpId,
        otp.clientId,
        otp.mode,
        otp.codeHash,
        otp.expiresAt,
        otp.messageId,
        otp.sealedText,
        otp.idempotency?.key ?? null,
        otp.idempotency?.requestHash ?? null,
        otp.country,
        otp.deviceId,
        otp.prefixKey,
      ],
    });
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
   * client's (in this mode) or does not exist (another client's row is
   * locked for as long as that takes).
   */
  async verify<T>(
    clientId: string,
    mode: Mode,
    otpId: string,
    decide: (row: OtpRow & { expired: boolean }) => { decision: VerifyDecision; result: T },
  ): Promise<{ result: T; row: OtpRow } | undefined> {
    return inTransaction(this.pool, async (client) => {
      // By its key alone: with client_id and mode in the condition, statistics older than a
      // client's first OTPs of a mode let the planner read all of them through otps_stats instead.
      const { rows } = await client.query<OtpRow & { expired: boolean }>({
        name: 'otps-lock',
        text: `SELECT ${OTP_COLUMNS}, expires_at <= now() AS expired FROM otps WHERE otp_id = $1 FOR UPDATE`,
        values: [otpId],
      });
      const row = rows[0];
      if (!row || row.client_id !== clientId || row.mode !== mode) return undefined;
      const { decision, result } = decide(row);
      const updated = await client.query<OtpRow>(
        decision === 'verify'
          ? {
              name: 'otps-verified',
              text: `UPDATE otps SET verified_at = now() WHERE otp_id = $1 AND verified_at IS NULL RETURNING ${OTP_COLUMNS}`,
              values: [otpId],
            }
          : {
              name: 'otps-wrong-code',
              text: `UPDATE otps SET attempts = attempts + 1 WHERE otp_id = $1 AND attempts < $2 RETURNING ${OTP_COLUMNS}`,
              values: [otpId, MAX_ATTEMPTS],
            },
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
   * Deletes OTPs that expired more than `hours` ago, folded into the daily
   * rollups of the statistics in the same statement, and erases the sealed
   * text of those that expired; returns how many were deleted.
   */
  async purgeExpired(hours: number): Promise<number> {
    await this.eraseExpiredSeals();
    const { rows } = await this.pool.query<{ deleted: number }>(
      `WITH gone AS (
         DELETE FROM otps WHERE expires_at < now() - make_interval(hours => $1)
         RETURNING client_id, mode, created_at, country, device_id, verified_at, attempts
       ), folded AS (
         INSERT INTO otp_daily AS d (client_id, mode, day, country, device_id, sent, verified, expired, failed_attempts)
         SELECT client_id, mode, (created_at AT TIME ZONE 'UTC')::date, coalesce(country, 'ZZ'), coalesce(device_id, ''),
                count(*), count(verified_at), count(*) FILTER (WHERE verified_at IS NULL), coalesce(sum(attempts), 0)
         FROM gone GROUP BY 1, 2, 3, 4, 5
         ON CONFLICT (client_id, mode, day, country, device_id) DO UPDATE SET
           sent = d.sent + EXCLUDED.sent, verified = d.verified + EXCLUDED.verified,
           expired = d.expired + EXCLUDED.expired, failed_attempts = d.failed_attempts + EXCLUDED.failed_attempts
       )
       SELECT count(*)::int AS deleted FROM gone`,
      [hours],
    );
    return rows[0]?.deleted ?? 0;
  }

  /**
   * The counts of a client's OTPs of a mode by UTC day of created_at and
   * country: the rows made in [from, until), and the rollups of the whole
   * days `days` (rolled-up OTPs are no longer rows, so nothing counts twice).
   * `deviceId`: only those first queued on that device.
   */
  async counts(
    clientId: string,
    mode: Mode,
    period: { from: Date; until: Date; days: { first: string; last: string } | null },
    deviceId?: string,
  ): Promise<OtpCountRow[]> {
    const { rows } = await this.pool.query<OtpCountRow>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, coalesce(country, 'ZZ') AS country,
              count(*)::int AS sent, count(verified_at)::int AS verified,
              count(*) FILTER (WHERE verified_at IS NULL AND expires_at <= now())::int AS expired,
              coalesce(sum(attempts), 0)::int AS failed_attempts
       FROM otps
       WHERE client_id = $1 AND mode = $2 AND created_at >= $3 AND created_at < $4 AND ($5::text IS NULL OR device_id = $5)
       GROUP BY 1, 2
       UNION ALL
       SELECT to_char(day, 'YYYY-MM-DD'), country, sum(sent)::int, sum(verified)::int, sum(expired)::int, sum(failed_attempts)::int
       FROM otp_daily
       WHERE client_id = $1 AND mode = $2 AND $6::date IS NOT NULL AND day BETWEEN $6::date AND $7::date AND ($5::text IS NULL OR device_id = $5)
       GROUP BY 1, 2`,
      [clientId, mode, period.from, period.until, deviceId ?? null, period.days?.first ?? null, period.days?.last ?? null],
    );
    return rows;
  }
}
