import { inTransaction, type Pool } from '@smsgw/platform';
import { ALLOWED_FROM, type ReportedStatus } from '../domain/message-status';
import { EVENT_FIELDS, type EventFields, type MessageRow, type Mode } from '../domain/message-row';
import { CLAIMABLE, messageColumns, UNTAKEN } from './message-conditions';

/**
 * The messages once stored: reading them, and moving their status (cancel,
 * the phone's acceptance and reports, an OTP's expiry), each move allowed
 * only from the statuses the state machine names. Storing and claiming them
 * is the queue's (`queue.repository.ts`).
 */
export class MessageRepository {
  constructor(private readonly pool: Pool) {}

  async find(clientId: string, messageId: string, mode: Mode): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>('SELECT * FROM messages WHERE message_id = $1 AND client_id = $2 AND mode = $3', [
      messageId,
      clientId,
      mode,
    ]);
    return rows[0];
  }

  async findById(messageId: string): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>('SELECT * FROM messages WHERE message_id = $1', [messageId]);
    return rows[0];
  }

  /** The messages of a batch, in the order they were given (ids grow with it). */
  async findBatch(batchId: string): Promise<MessageRow[]> {
    const { rows } = await this.pool.query<MessageRow>('SELECT * FROM messages WHERE batch_id = $1 ORDER BY message_id', [batchId]);
    return rows;
  }

  /**
   * Cancels a message that is queued and not being handed to a phone (held
   * or not). The row lock makes this and a concurrent claim exclusive:
   * exactly one wins.
   */
  async cancel(clientId: string, messageId: string, mode: Mode): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = 'cancelled', cancelled_at = now(), otp_sealed_text = NULL, held = false
       WHERE message_id = $1 AND client_id = $2 AND mode = $3 AND ${UNTAKEN}
       RETURNING *`,
      [messageId, clientId, mode],
    );
    return rows[0];
  }

  /**
   * The phone has the message in its outbox: stop offering it, and from now on
   * refuse to cancel it; `sim` > 0 is the slot it goes through. Returns the message's status afterwards (undefined for
   * an unknown message or another device's).
   */
  async markAccepted(
    messageId: string,
    deviceId: string,
    at: Date,
    sim = 0,
  ): Promise<{ status: MessageRow['status']; accepted: boolean } | undefined> {
    return (await this.markAcceptedMany([{ messageId, deviceId, at, sim }]))[0];
  }

  /**
   * `markAccepted` for many acknowledgements in one statement. Returns, per
   * acknowledgement in the order given, the message's status afterwards and
   * whether it is the phone's (undefined for an unknown message or another
   * device's). No two items may name one message.
   *
   * The ids are named as `= ANY($1)` besides the join, here and in
   * `applyReports`: a generic plan guesses 10 rows for any array, and with
   * the join alone it read the whole queue (or the whole table) into a hash
   * whenever the statistics made that look cheap; `ANY` keeps it on the key.
   * The status is tested as `(…) IS TRUE` so that no partial index on queued
   * messages matches it: the planner then added a read of the whole queue.
   */
  async markAcceptedMany(
    accepts: readonly { messageId: string; deviceId: string; at: Date; sim: number }[],
  ): Promise<({ status: MessageRow['status']; accepted: boolean } | undefined)[]> {
    const outcomes = await this.acceptOnce(accepts);
    // A row another transaction changed while the statement waited for its lock (the phone's
    // `sent`, applied first) is not moved, and the statement still reads it as it was: queued and
    // not accepted. Those are asked again once, in a statement that sees the change.
    const unsure = (o: (typeof outcomes)[number]) => o?.status === 'queued' && !o.accepted;
    const changed = accepts.filter((_, i) => unsure(outcomes[i]));
    if (changed.length === 0) return outcomes;
    const again = await this.acceptOnce(changed);
    let next = 0;
    return outcomes.map((o) => (unsure(o) ? again[next++] : o));
  }

  private async acceptOnce(
    accepts: readonly { messageId: string; deviceId: string; at: Date; sim: number }[],
  ): Promise<({ status: MessageRow['status']; accepted: boolean } | undefined)[]> {
    if (accepts.length === 0) return [];
    const { rows } = await this.pool.query<{ message_id: string; status: MessageRow['status']; accepted: boolean }>({
      name: 'messages-accept-many',
      text: `WITH t AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::smallint[]) AS t(message_id, device_id, at, sim)
       ), moved AS (
         UPDATE messages m SET accepted_at = coalesce(m.accepted_at, t.at), lease_until = NULL, fleet = false, held = false,
                               sim = CASE WHEN t.sim > 0 THEN t.sim ELSE m.sim END
         FROM t
         WHERE m.message_id = ANY($1::text[]) AND m.message_id = t.message_id AND m.device_id = t.device_id AND (m.status = 'queued') IS TRUE
           AND NOT (m.fleet AND m.avoid_device_id IS NOT DISTINCT FROM t.device_id)
         RETURNING m.message_id, m.status, true AS accepted
       )
       SELECT message_id, status, accepted FROM moved
       UNION ALL
       SELECT m.message_id, m.status, m.accepted_at IS NOT NULL FROM messages m JOIN t USING (message_id)
       WHERE m.message_id = ANY($1::text[]) AND m.device_id = t.device_id AND NOT EXISTS (SELECT 1 FROM moved WHERE moved.message_id = m.message_id)`,
      values: [accepts.map((a) => a.messageId), accepts.map((a) => a.deviceId), accepts.map((a) => a.at), accepts.map((a) => a.sim)],
    });
    const byId = new Map(rows.map((r) => [r.message_id, { status: r.status, accepted: r.accepted }]));
    return accepts.map((a) => byId.get(a.messageId));
  }

  /**
   * Moves the message to `status` if the state machine allows it from its
   * current status; returns the updated row, or undefined when it did not move.
   * A message opened to the fleet has left its device: a failure reported by
   * that device changes nothing (another phone will try it), nor does any
   * report of the device it must avoid (it failed there without being sent).
   * A sent or delivered report of the device it was released from (OFFLINE)
   * is the truth and ends its stay in the fleet. `sim` > 0 (the phone's
   * report said which slot) becomes the message's SIM.
   */
  async applyReport(
    messageId: string,
    deviceId: string,
    status: ReportedStatus,
    at: Date,
    error?: { code: string; message: string },
    sim = 0,
  ): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = $3::text, lease_until = NULL, accepted_at = coalesce(accepted_at, $4), otp_sealed_text = NULL,
         sim = CASE WHEN $8::smallint > 0 THEN $8::smallint ELSE sim END,
         sent_at = CASE WHEN $3::text IN ('sent', 'delivered') THEN coalesce(sent_at, $4) ELSE sent_at END,
         delivered_at = CASE WHEN $3::text = 'delivered' THEN $4 ELSE delivered_at END,
         failed_at = CASE WHEN $3::text = 'failed' THEN $4 ELSE failed_at END,
         error_code = coalesce($5::text, error_code),
         error_message = coalesce($6::text, error_message),
         fleet = false
       WHERE message_id = $1 AND device_id = $2 AND status = ANY($7::text[])
         AND NOT (fleet AND ($3::text = 'failed' OR avoid_device_id IS NOT DISTINCT FROM $2))
       RETURNING *`,
      [messageId, deviceId, status, at, error?.code ?? null, error?.message ?? null, ALLOWED_FROM[status], sim],
    );
    return rows[0];
  }

  /**
   * `applyReport` for many reports in one statement, no two of one message
   * (a message's reports in order go in successive calls). Returns the rows
   * that moved (what their events say), by message id. The statement keeps
   * their counts itself, in one upsert: it locks the rows first, so that the
   * status each move leaves is the one it really had. The row trigger stands
   * aside for its transaction, the statement's own: `t` sets
   * `smsgw.counts` (set_config, local) as it yields its first row, before
   * any row can move, which spares a BEGIN, a SET LOCAL and a COMMIT a round.
   */
  async applyReports(
    reports: readonly {
      messageId: string;
      deviceId: string;
      status: ReportedStatus;
      at: Date;
      error?: { code: string; message: string };
      sim: number;
    }[],
  ): Promise<Map<string, EventFields>> {
    if (reports.length === 0) return new Map();
    const col = <T>(f: (r: (typeof reports)[number]) => T) => reports.map(f);
    const { rows } = await this.pool.query<EventFields>({
      name: 'messages-apply-reports',
      text: `WITH t AS MATERIALIZED (
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[], $7::smallint[])
               AS t(message_id, device_id, status, at, error_code, error_message, sim)
             WHERE set_config('smsgw.counts', 'by_statement', true) IS NOT NULL
           ), old AS MATERIALIZED (
             SELECT m.message_id, m.status FROM messages m JOIN t ON m.message_id = t.message_id WHERE m.message_id = ANY($1::text[]) FOR UPDATE OF m
           ), moved AS (
             UPDATE messages m SET status = t.status, lease_until = NULL, accepted_at = coalesce(m.accepted_at, t.at), otp_sealed_text = NULL,
               sim = CASE WHEN t.sim > 0 THEN t.sim ELSE m.sim END,
               sent_at = CASE WHEN t.status IN ('sent', 'delivered') THEN coalesce(m.sent_at, t.at) ELSE m.sent_at END,
               delivered_at = CASE WHEN t.status = 'delivered' THEN t.at ELSE m.delivered_at END,
               failed_at = CASE WHEN t.status = 'failed' THEN t.at ELSE m.failed_at END,
               error_code = coalesce(t.error_code, m.error_code),
               error_message = coalesce(t.error_message, m.error_message),
               fleet = false
             FROM t JOIN old ON old.message_id = t.message_id
             WHERE m.message_id = ANY($1::text[]) AND m.message_id = t.message_id AND m.device_id = t.device_id
               AND m.status = ANY(CASE t.status WHEN 'sent' THEN $8::text[] WHEN 'delivered' THEN $9::text[] ELSE $10::text[] END)
               AND NOT (m.fleet AND (t.status = 'failed' OR m.avoid_device_id IS NOT DISTINCT FROM t.device_id))
             RETURNING ${EVENT_FIELDS.map((f) => `m.${f}`).join(', ')}, m.created_at, old.status AS old_status
           ), counted AS (
             -- Every key in one statement, in key order, so that writers never deadlock (as the trigger does).
             INSERT INTO message_counts AS c (client_id, mode, day, device_id, status, shard, n)
             SELECT k.client_id, k.mode, k.day, k.device_id, k.status, pg_backend_pid() % 16, sum(k.n)
             FROM (
               SELECT client_id, mode, (created_at AT TIME ZONE 'UTC')::date AS day, device_id, old_status AS status, -1 AS n FROM moved
               UNION ALL
               SELECT client_id, mode, (created_at AT TIME ZONE 'UTC')::date, device_id, status, 1 FROM moved
             ) k
             GROUP BY 1, 2, 3, 4, 5
             HAVING sum(k.n) <> 0
             ORDER BY 1, 2, 3, 4, 5
             ON CONFLICT (client_id, mode, day, device_id, status, shard) DO UPDATE SET n = c.n + excluded.n
           )
           SELECT ${EVENT_FIELDS.join(', ')} FROM moved`,
      values: [
        col((r) => r.messageId),
        col((r) => r.deviceId),
        col((r) => r.status),
        col((r) => r.at),
        col((r) => r.error?.code ?? null),
        col((r) => r.error?.message ?? null),
        col((r) => r.sim),
        ALLOWED_FROM.sent,
        ALLOWED_FROM.delivered,
        ALLOWED_FROM.failed,
      ],
    });
    return new Map(rows.map((r) => [r.message_id, r]));
  }

  /** Messages by id (those that exist). */
  async findMany(messageIds: readonly string[]): Promise<Map<string, MessageRow>> {
    if (messageIds.length === 0) return new Map();
    const { rows } = await this.pool.query<MessageRow>({
      name: 'messages-find-many',
      text: `SELECT ${messageColumns()} FROM messages WHERE message_id = ANY($1::text[])`,
      values: [messageIds],
    });
    return new Map(rows.map((r) => [r.message_id, r]));
  }

  /**
   * Fails the messages still waiting for a phone past their expiry (their
   * ttl, or an OTP's), fleet ones too (`EXPIRED`, at their expiry time, an
   * OTP's sealed text erased), at most
   * `limit` at a time. `publish` gets the failed rows before the commit: if
   * it throws, nothing changes and the next sweep tries again; a commit lost
   * after it only publishes the same events again (same ids).
   */
  async expireMessages(errorMessage: string, publish: (rows: MessageRow[]) => Promise<void>, limit = 500): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<MessageRow>(
        `WITH due AS (
           SELECT message_id FROM messages
           WHERE expires_at IS NOT NULL AND expires_at <= now() AND ${CLAIMABLE}
           ORDER BY expires_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED
         )
         UPDATE messages m SET status = 'failed', failed_at = m.expires_at, error_code = 'EXPIRED', error_message = $1,
                               otp_sealed_text = NULL, lease_until = NULL, fleet = false
         FROM due WHERE m.message_id = due.message_id
         RETURNING m.*`,
        [errorMessage, limit],
      );
      if (rows.length > 0) await publish(rows);
      return rows.length;
    });
  }

  /** The live messages waiting for each device (none: absent), counted up to `upTo` each when it is above 0. */
  async queueDepths(deviceIds: string[], upTo = 0): Promise<Map<string, number>> {
    const waiting = `mode = 'live' AND status = 'queued' AND accepted_at IS NULL AND NOT held AND NOT fleet`;
    const { rows } =
      upTo > 0
        ? await this.pool.query<{ device_id: string; depth: number }>({
            // Named: prepared once a connection, not planned again on every send whose phone the gateway chooses.
            name: 'messages-queue-depths-up-to',
            text: `SELECT d.device_id, q.depth FROM unnest($1::text[]) AS d(device_id)
             CROSS JOIN LATERAL (
               SELECT count(*)::int AS depth FROM (SELECT 1 FROM messages WHERE device_id = d.device_id AND ${waiting} LIMIT $2) x
             ) q
             WHERE q.depth > 0`,
            values: [deviceIds, upTo],
          })
        : await this.pool.query<{ device_id: string; depth: number }>({
            name: 'messages-queue-depths',
            text: `SELECT device_id, count(*)::int AS depth FROM messages WHERE device_id = ANY($1::text[]) AND ${waiting} GROUP BY device_id`,
            values: [deviceIds],
          });
    return new Map(rows.map((r) => [r.device_id, r.depth]));
  }

  /** Messages waiting for a phone now (due, not taken), and how long the oldest has waited, by mode. */
  async queueStats(): Promise<{ mode: Mode; depth: number; oldest_seconds: number }[]> {
    const { rows } = await this.pool.query<{ mode: Mode; depth: number; oldest_seconds: number }>(
      `SELECT mode, count(*)::int AS depth, coalesce(extract(epoch FROM now() - min(due_at)), 0)::float8 AS oldest_seconds
       FROM messages WHERE status = 'queued' AND accepted_at IS NULL AND NOT held AND due_at <= now() GROUP BY mode`,
    );
    return rows;
  }
}
