import { inTransaction, type Pool } from '@smsgw/platform';
import type { MessageRow } from '../domain/message-row';
import { CLAIMABLE } from './message-conditions';

/** Why a phone's messages are taken off it: the code of their `moved` attempt. */
export type ReleaseCode = 'DEVICE_OFFLINE' | 'DEVICE_REMOVED' | 'SIM_QUARANTINED';

/** A device the failover sweep should look at. */
export interface StrandedDeviceRow {
  device_id: string;
  client_id: string;
  queued: number;
}

/** A failure a phone reported, as the attempt it becomes. */
export interface FailedTry {
  code: string;
  message: string;
  /** RFC 3339. */
  at: string;
  /** The slot the phone said it used (1 to 8); 0: the message's own. */
  sim?: number;
}

/**
 * Messages counted per stranded device; past this the count stops. The hub
 * sweeps every few seconds and only needs to know which devices to look at:
 * counting whole queues would read every queued row each time.
 */
const STRANDED_COUNT_UP_TO = 100;

/**
 * An OTP's SMS may still take its fallback: its second copy is there (so it never took it), it is
 * live and unpinned, never failed on a phone before, and its OTP is valid a few seconds more.
 */
const OTP_FALLBACK_POSSIBLE = `otp_fallback_text IS NOT NULL AND mode = 'live' AND NOT pinned
  AND NOT coalesce(attempts @> '[{"status": "failed"}]'::jsonb, false) AND expires_at > now() + interval '5 seconds'`;

/** now() as RFC 3339 in UTC with milliseconds, whatever the session's time zone. */
const NOW_RFC3339 = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The fleet: moving messages off a phone that cannot send them (offline too
 * long, removed, or a failure that sent nothing) to the other phones of its
 * client, each move recorded as an attempt. Claiming a fleet message is the
 * queue's (`queue.repository.ts`).
 */
export class FleetRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * One batch of a release: up to `limit` messages of the device that no
   * phone has taken (scheduled ones too) are opened to the fleet with a
   * `moved` attempt; with DEVICE_REMOVED the pinned ones end `failed` /
   * DEVICE_REMOVED (`failedMessage`), and the fleet ones must avoid the
   * device; each attempt keeps the slot of its try and a moved message's SIM
   * becomes the requested one again. `publish` gets the failed rows before the commit: if it throws,
   * nothing changes. A message moves once: moved and failed ones no longer
   * match. A claim under way holds its row: this waits for it, then skips a
   * message it took.
   */
  async releaseBatch(
    deviceId: string,
    clientId: string,
    code: ReleaseCode,
    texts: { moved: string; failed: string },
    publish: (failed: MessageRow[]) => Promise<void>,
    limit: number,
  ): Promise<MessageRow[]> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<MessageRow>(
        `WITH target AS (
           SELECT message_id FROM messages
           WHERE device_id = $1 AND ($2::text = '' OR client_id = $2) AND mode = 'live' AND NOT fleet AND ${CLAIMABLE}
             AND (NOT pinned OR $3::text = 'DEVICE_REMOVED')
           ORDER BY message_id
           LIMIT $6
           FOR UPDATE
         )
         UPDATE messages m SET
           fleet = NOT m.pinned,
           avoid_device_id = CASE WHEN NOT m.pinned AND $3::text = 'DEVICE_REMOVED' THEN $1 ELSE m.avoid_device_id END,
           attempts = CASE WHEN m.pinned THEN m.attempts ELSE coalesce(m.attempts, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
             'device_id', $1::text, 'status', 'moved', 'error_code', $3::text, 'error_message', $4::text, 'at', ${NOW_RFC3339},
             'sim', m.sim)) END,
           sim = CASE WHEN m.pinned THEN m.sim ELSE m.requested_sim END,
           status = CASE WHEN m.pinned THEN 'failed' ELSE m.status END,
           failed_at = CASE WHEN m.pinned THEN now() ELSE m.failed_at END,
           error_code = CASE WHEN m.pinned THEN 'DEVICE_REMOVED' ELSE m.error_code END,
           error_message = CASE WHEN m.pinned THEN $5::text ELSE m.error_message END,
           otp_sealed_text = CASE WHEN m.pinned THEN NULL ELSE m.otp_sealed_text END,
           lease_until = NULL
         FROM target WHERE m.message_id = target.message_id
         RETURNING m.*`,
        [deviceId, clientId, code, texts.moved, texts.failed, limit],
      );
      const failed = rows.filter((r) => r.status === 'failed');
      if (failed.length > 0) await publish(failed);
      return rows;
    });
  }

  /**
   * The devices holding live, unpinned messages due now that no phone has
   * taken and that are not in the fleet yet, with how many (counted up to
   * 100: 100 means 100 or more): among `deviceIds` when given (one probe
   * each), else every device, read by skipping through the queue index (one
   * probe per device), so a long queue costs one probe, not a scan.
   */
  async strandedDevices(deviceIds: readonly string[] = []): Promise<StrandedDeviceRow[]> {
    const devices =
      deviceIds.length > 0
        ? `d AS (SELECT DISTINCT unnest($1::text[]) AS device_id)`
        : `RECURSIVE d AS (
         (SELECT device_id FROM messages WHERE status = 'queued' AND accepted_at IS NULL AND NOT held ORDER BY device_id LIMIT 1)
         UNION ALL
         SELECT (SELECT q.device_id FROM messages q
                 WHERE q.status = 'queued' AND q.accepted_at IS NULL AND NOT q.held AND q.device_id > d.device_id
                 ORDER BY q.device_id LIMIT 1)
         FROM d WHERE d.device_id IS NOT NULL
       )`;
    const { rows } = await this.pool.query<StrandedDeviceRow>(
      `WITH ${devices}
       SELECT d.device_id, s.client_id, s.queued
       FROM d
       CROSS JOIN LATERAL (
         SELECT x.client_id, count(*)::int AS queued FROM (
           SELECT q.client_id FROM messages q
           WHERE q.device_id = d.device_id AND q.mode = 'live' AND NOT q.pinned AND NOT q.fleet AND ${CLAIMABLE}
             AND q.due_at <= now() AND (q.expires_at IS NULL OR q.expires_at > now())
           LIMIT ${STRANDED_COUNT_UP_TO}
         ) x
         GROUP BY x.client_id
       ) s
       WHERE d.device_id IS NOT NULL
       ORDER BY d.device_id`,
      deviceIds.length > 0 ? [deviceIds] : [],
    );
    return rows;
  }

  /**
   * A failure that sent nothing (the phone says so), on a live unpinned
   * message of `deviceId` not sent and never failed before, for another
   * cause than its expiry: the message goes back to the queue, opened to the
   * fleet and kept off this device, the failure recorded as an attempt.
   * One statement; a report applied again finds the message in the fleet (or
   * on another device) and changes nothing. Undefined when it does not apply.
   * The attempt keeps the slot of that try; the next phone's SIM is chosen
   * again (the requested one, or none yet).
   */
  async retryElsewhere(messageId: string, deviceId: string, failure: FailedTry): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = 'queued', accepted_at = NULL, lease_until = NULL, fleet = true, avoid_device_id = $2,
         attempts = coalesce(attempts, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
           'device_id', $2::text, 'status', 'failed', 'error_code', $3::text, 'error_message', $4::text, 'at', $5::text,
           'sim', CASE WHEN $6::smallint > 0 THEN $6::smallint ELSE sim END)),
         sim = requested_sim
       WHERE message_id = $1 AND device_id = $2 AND mode = 'live' AND status = 'queued' AND sent_at IS NULL
         AND NOT pinned AND NOT fleet AND $3::text <> 'EXPIRED'
         AND NOT coalesce(attempts @> '[{"status": "failed"}]'::jsonb, false)
       RETURNING *`,
      [messageId, deviceId, failure.code, failure.message, failure.at, failure.sim ?? 0],
    );
    return rows[0];
  }

  /**
   * The delivery fallback of an OTP's SMS that `failed` with `codes`'s cause on its phone: once,
   * while the OTP is valid for a few more seconds, it goes back to the queue opened to the fleet and
   * kept off that phone, with its text sealed again from the second copy (which is then gone), the
   * failure recorded as an attempt and its times and error cleared. Live, unpinned, never failed on
   * a phone before (a `retryElsewhere` was its one more try). One statement; undefined when it does
   * not apply (a report applied again finds it queued and changes nothing).
   */
  async otpFallbackAfterFailure(messageId: string, codes: readonly string[]): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = 'queued', accepted_at = NULL, lease_until = NULL, sent_at = NULL, failed_at = NULL,
         error_code = NULL, error_message = NULL, fleet = true, avoid_device_id = device_id,
         attempts = coalesce(attempts, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
           'device_id', device_id, 'status', 'failed', 'error_code', error_code, 'error_message', error_message,
           'at', to_char(coalesce(failed_at, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'sim', sim)),
         sim = requested_sim, otp_sealed_text = otp_fallback_text, otp_fallback_text = NULL
       WHERE message_id = $1 AND status = 'failed' AND error_code = ANY($2::text[]) AND ${OTP_FALLBACK_POSSIBLE}
       RETURNING *`,
      [messageId, codes],
    );
    return rows[0];
  }

  /**
   * The delivery fallback of an OTP's SMS still not delivered when its timer fires: queued (a
   * phone's or not) or sent, it goes back to the queue opened to the fleet and kept off its phone,
   * as `otpFallbackAfterFailure` does, with a `moved` attempt NOT_DELIVERED. A message already
   * waiting in the fleet stays there. Undefined when it does not apply; then the second copy of a
   * message that is final is erased (nothing needs it any more).
   */
  async otpFallbackWhenUndelivered(messageId: string, attemptMessage: string): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = 'queued', accepted_at = NULL, lease_until = NULL, sent_at = NULL, fleet = true,
         avoid_device_id = device_id,
         attempts = coalesce(attempts, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
           'device_id', device_id, 'status', 'moved', 'error_code', 'NOT_DELIVERED', 'error_message', $2::text,
           'at', ${NOW_RFC3339}, 'sim', sim)),
         sim = requested_sim, otp_sealed_text = otp_fallback_text, otp_fallback_text = NULL
       WHERE message_id = $1 AND status IN ('queued', 'sent') AND NOT (status = 'queued' AND fleet) AND NOT held
         AND ${OTP_FALLBACK_POSSIBLE}
       RETURNING *`,
      [messageId, attemptMessage],
    );
    if (rows[0]) return rows[0];
    await this.pool.query(
      `UPDATE messages SET otp_fallback_text = NULL
       WHERE message_id = $1 AND otp_fallback_text IS NOT NULL AND status IN ('delivered', 'failed', 'cancelled')`,
      [messageId],
    );
    return undefined;
  }

  /** Erases the second copies of OTPs past their expiry (they can no longer be sent); returns how many. */
  async eraseExpiredOtpFallbacks(): Promise<number> {
    const { rowCount } = await this.pool.query(
      'UPDATE messages SET otp_fallback_text = NULL WHERE otp_fallback_text IS NOT NULL AND expires_at <= now()',
    );
    return rowCount ?? 0;
  }
}
