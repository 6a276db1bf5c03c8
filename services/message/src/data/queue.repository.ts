import { FAILURE_MESSAGES, inTransaction, type Pool, type PoolClient } from '@smsgw/platform';
import { aheadWithin, EXACT_UP_TO } from '../domain/queue-order';
import { CLAIMABLE, type MessageRow, type Mode, type NewBatch, type NewMessage, type PlacedMessage } from './message-row';
import { insertOtpRow } from './otp-insert';

/** A message that asked for no SIM, or for one of the slots in `param` (a smallint[]; empty: any). */
const SIM_FITS = (param: string) =>
  `(requested_sim = 0 OR cardinality(${param}::smallint[]) = 0 OR requested_sim = ANY(${param}::smallint[]))`;

/**
 * The per-device priority queue: storing messages where the claim will find
 * them (with their batch and Idempotency-Keys, in one statement), telling how
 * many go before each, and handing the next one to a phone under a lease.
 */
export class QueueRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Inserts all messages (and their batch, if any) in one statement, so in
   * one transaction: a batch, or the independent sends gathered by SendMany.
   */
  async insert(messages: NewMessage[], batch?: NewBatch): Promise<MessageRow[]> {
    return (await this.insertPlaced(messages, batch)).map((p) => p.row);
  }

  /**
   * Inserts like `insert`, and tells for each message how many messages of
   * its device go before it: the input of `estimated_delivery`. One
   * statement: the count reads the queue as it was before the insert, and
   * the messages of the statement are then placed among themselves as the
   * claim orders them; it also tells whether each device had anything to
   * claim. Messages already queued are counted one by one up to
   * 100; past that the device's queued total is read from the per-day counts
   * (priority ignored), so that a long queue does not make every send slower.
   * Messages opened to the fleet are no longer the device's: not counted.
   *
   * Idempotency keys (of single sends, or of the batch) are stored by the same
   * statement, under a unique constraint per client and mode: a message whose
   * key is already stored (by a committed or a concurrent statement, which
   * this one then waits for) is not inserted and is absent from the result;
   * `findKeys` tells what the key points to. A key older than `keyTtlSeconds`
   * is taken over. No two messages of one call may carry the same key.
   *
   * A message `optedOut` is stored `failed` / OPTED_OUT (failed_at now), never
   * claimable, counted in no queue; when the call has any, the statement runs
   * in a transaction and `publishFailed` gets those rows before the commit
   * (as the expiry does): if it throws, nothing is stored.
   *
   * A message of a campaign (`campaignId`) is stored held when its campaign
   * is paused; `before` (a campaign's lock and check) runs first in the same
   * transaction: if it throws, nothing is stored.
   */
  async insertPlaced(
    messages: NewMessage[],
    batch?: NewBatch,
    keyTtlSeconds = 86_400,
    publishFailed?: (rows: MessageRow[]) => Promise<void>,
    before?: (db: PoolClient) => Promise<void>,
  ): Promise<PlacedMessage[]> {
    if (!before && (!publishFailed || !messages.some((m) => m.optedOut))) return this.insertIn(this.pool, messages, batch, keyTtlSeconds);
    return inTransaction(this.pool, async (client) => {
      await before?.(client);
      const placed = await this.insertIn(client, messages, batch, keyTtlSeconds);
      const failed = placed.filter((p) => p.row.status === 'failed').map((p) => p.row);
      if (failed.length > 0 && publishFailed) await publishFailed(failed);
      return placed;
    });
  }

  private async insertIn(db: Pool | PoolClient, messages: NewMessage[], batch: NewBatch | undefined, keyTtlSeconds: number) {
    const col = <K extends keyof NewMessage>(k: K) => messages.map((m) => m[k]);
    const { rows } = await db.query<MessageRow & { queued_before: number; long_queue: boolean; device_was_idle: boolean }>({
      name: 'messages-insert',
      text: `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::smallint[], $8::jsonb[],
                              $9::text[], $10::smallint[], $11::text[], $12::timestamptz[], $17::text[], $18::text[], $22::text[],
                              $23::int[], $24::boolean[], $25::boolean[], $27::smallint[], $28::boolean[], $29::text[])
              WITH ORDINALITY AS m(message_id, client_id, mode, device_id, to_number, body, priority, metadata, webhook_url,
                                   parts, encoding, scheduled_at, idempotency_key, request_hash, traceparent, ttl_seconds, pinned,
                                   opted_out, requested_sim, replies, campaign_id, ord)
       ), claimed AS (
         INSERT INTO idempotency_keys AS k (client_id, mode, idempotency_key, request_hash, message_id, batch_id)
         SELECT client_id, mode, idempotency_key, request_hash, message_id, NULL FROM input WHERE idempotency_key IS NOT NULL
         UNION ALL
         SELECT $15::text, $16::text, $19::text, $20::text, NULL, $13::text WHERE $19::text IS NOT NULL
         ON CONFLICT (client_id, mode, idempotency_key) DO UPDATE
           SET request_hash = excluded.request_hash, message_id = excluded.message_id, batch_id = excluded.batch_id, created_at = now()
           WHERE k.created_at < now() - make_interval(secs => $21::double precision)
         RETURNING k.message_id, k.batch_id
       ), batch AS (
         INSERT INTO batches (batch_id, client_id, mode, total)
         SELECT $13::text, $15::text, $16::text, $14::int
         WHERE $13::text IS NOT NULL AND ($19::text IS NULL OR EXISTS (SELECT 1 FROM claimed WHERE batch_id IS NOT NULL))
         RETURNING batch_id
       ), inserted AS (
         INSERT INTO messages (message_id, client_id, mode, device_id, batch_id, to_number, body, priority, metadata,
                               webhook_url, parts, encoding, scheduled_at, due_at, status, traceparent, expires_at, pinned,
                               failed_at, error_code, error_message, requested_sim, sim, replies, campaign_id, held)
         SELECT m.message_id, m.client_id, m.mode, m.device_id, (SELECT batch_id FROM batch), m.to_number, m.body, m.priority,
                m.metadata, m.webhook_url, m.parts, m.encoding, m.scheduled_at, coalesce(m.scheduled_at, now()),
                CASE WHEN m.opted_out THEN 'failed' ELSE 'queued' END, m.traceparent,
                CASE WHEN m.ttl_seconds > 0 THEN coalesce(m.scheduled_at, now()) + make_interval(secs => m.ttl_seconds) END, m.pinned,
                CASE WHEN m.opted_out THEN now() END, CASE WHEN m.opted_out THEN 'OPTED_OUT' END,
                CASE WHEN m.opted_out THEN $26::text END, m.requested_sim, m.requested_sim, m.replies, m.campaign_id,
                NOT m.opted_out AND EXISTS (SELECT 1 FROM campaigns c WHERE c.campaign_id = m.campaign_id AND c.status = 'paused')
         FROM input m
         WHERE (m.idempotency_key IS NULL OR m.message_id IN (SELECT message_id FROM claimed WHERE message_id IS NOT NULL))
           AND ($19::text IS NULL OR EXISTS (SELECT 1 FROM claimed WHERE batch_id IS NOT NULL))
         ORDER BY m.ord
         RETURNING *
       ), heads AS (
         SELECT DISTINCT client_id, mode, device_id, priority, due_at FROM inserted WHERE status = 'queued' AND NOT held
       ), placed AS MATERIALIZED (
         SELECT h.*, x.exact >= ${EXACT_UP_TO} AS long_queue,
                w.device_was_idle,
                CASE WHEN x.exact < ${EXACT_UP_TO} THEN x.exact ELSE (
                  SELECT coalesce(sum(c.n), 0)::int FROM message_counts c
                  WHERE c.client_id = h.client_id AND c.mode = h.mode AND c.device_id = h.device_id AND c.status = 'queued'
                ) END AS queued_before
         FROM heads h
         CROSS JOIN LATERAL (
           SELECT count(*)::int AS exact FROM (
             SELECT 1 FROM messages q
             WHERE q.device_id = h.device_id AND q.mode = h.mode AND q.status = 'queued' AND q.accepted_at IS NULL AND NOT q.held AND NOT q.fleet
               AND q.due_at <= h.due_at AND (q.priority < h.priority OR (q.priority = h.priority AND q.due_at < h.due_at))
             LIMIT ${EXACT_UP_TO}
           ) ahead
         ) x
         CROSS JOIN LATERAL (
           SELECT count(*) = 0 AS device_was_idle FROM (
             SELECT 1 FROM messages q
             WHERE q.device_id = h.device_id AND q.mode = h.mode AND q.status = 'queued' AND q.accepted_at IS NULL AND NOT q.held AND NOT q.fleet
               AND (q.lease_until IS NULL OR q.lease_until < now()) AND q.due_at <= now()
             LIMIT 1
           ) claimable
         ) w
       )
       SELECT i.*, coalesce(p.queued_before, 0) AS queued_before, coalesce(p.long_queue, false) AS long_queue,
              coalesce(p.device_was_idle, false) AS device_was_idle
       FROM inserted i
       LEFT JOIN placed p ON (p.client_id, p.mode, p.device_id, p.priority, p.due_at) = (i.client_id, i.mode, i.device_id, i.priority, i.due_at)`,
      values: [
        col('messageId'),
        col('clientId'),
        col('mode'),
        col('deviceId'),
        col('to'),
        col('text'),
        col('priority'),
        messages.map((m) => (m.metadata ? JSON.stringify(m.metadata) : null)),
        col('webhookUrl'),
        col('parts'),
        col('encoding'),
        col('scheduledAt'),
        batch?.batchId ?? null,
        messages.length,
        batch?.clientId ?? null,
        batch?.mode ?? null,
        messages.map((m) => m.idempotency?.key ?? null),
        messages.map((m) => m.idempotency?.requestHash ?? null),
        batch?.idempotency?.key ?? null,
        batch?.idempotency?.requestHash ?? null,
        keyTtlSeconds,
        messages.map((m) => m.traceparent || null),
        messages.map((m) => m.ttlSeconds ?? 0),
        messages.map((m) => m.pinned === true),
        messages.map((m) => m.optedOut === true),
        FAILURE_MESSAGES.OPTED_OUT,
        messages.map((m) => m.requestedSim ?? 0),
        messages.map((m) => m.replies === true),
        messages.map((m) => m.campaignId ?? null),
      ],
    });
    const byId = new Map(rows.map((r) => [r.message_id, r]));
    const ordered = messages.flatMap((m) => byId.get(m.messageId) ?? []);
    // Only claimable messages wait for one another; an opted-out or held one waits for nothing.
    const queued = ordered.filter((r) => r.status === 'queued' && !r.held);
    const aheadOfQueued = aheadWithin(queued);
    const aheadById = new Map(queued.map((r, i) => [r.message_id, aheadOfQueued[i]!]));
    const ahead = ordered.map((r) => aheadById.get(r.message_id) ?? 0);
    return ordered.map(({ queued_before, long_queue, device_was_idle, ...row }, i) => ({
      row,
      ahead: long_queue ? Math.max(EXACT_UP_TO, queued_before + ahead[i]!) : queued_before + ahead[i]!,
      deviceWasIdle: device_was_idle,
    }));
  }

  /**
   * Stored messages as a send answered again reads them: each row, and how
   * many messages of its device the claim takes before it now (up to 100).
   */
  async findPlaced(messageIds: string[]): Promise<{ row: MessageRow; ahead: number }[]> {
    const { rows } = await this.pool.query<MessageRow & { ahead: number }>(
      `SELECT m.*, CASE WHEN m.status = 'queued' AND m.accepted_at IS NULL THEN (
                SELECT count(*)::int FROM (
                  SELECT 1 FROM messages q
                  WHERE q.device_id = m.device_id AND q.mode = m.mode AND q.status = 'queued' AND q.accepted_at IS NULL AND NOT q.held AND NOT q.fleet
                    AND q.due_at <= m.due_at AND (q.priority, q.due_at, q.message_id) < (m.priority, m.due_at, m.message_id)
                  LIMIT ${EXACT_UP_TO}
                ) a
              ) ELSE 0 END AS ahead
       FROM messages m WHERE m.message_id = ANY($1::text[])`,
      [messageIds],
    );
    return rows.map(({ ahead, ...row }) => ({ row, ahead }));
  }

  /**
   * Stores an OTP's SMS: `message.text` is the masked text, `sealedText` the
   * full one, sealed. Its id is the caller's: the same id again (the otp
   * service completing an OTP after a lost answer) stores nothing and gives
   * undefined. Tells how many messages of its device the claim takes before
   * it (priority 1: only priority-1 messages due no later, up to 100).
   */
  async insertOtp(
    message: NewMessage,
    sealedText: Buffer,
    expiresAt: Date,
    publishFailed?: (rows: MessageRow[]) => Promise<void>,
  ): Promise<{ row: MessageRow; ahead: number } | undefined> {
    if (!publishFailed || !message.optedOut) return insertOtpRow(this.pool, message, sealedText, expiresAt);
    return inTransaction(this.pool, async (client) => {
      const inserted = await insertOtpRow(client, message, sealedText, expiresAt);
      if (inserted) await publishFailed([inserted.row]);
      return inserted;
    });
  }

  /**
   * Takes the next due message (priority 1 first, then oldest) under a lease:
   * the device's live messages, or in test mode the device's test messages,
   * or with no device any client's test messages (the simulated device).
   * A live claim given the device's `clientId` also considers the client's
   * messages opened to the fleet (except those to keep off this device) and
   * takes the best of both; a fleet message taken becomes this device's.
   * `sims` (the phone's slots with room; empty: any) keeps out a message
   * that asked for another SIM: a filter on the rows the queue indexes hand
   * over in claim order, not another access path.
   */
  async claimNext(
    deviceId: string,
    leaseMs: number,
    mode: Mode = 'live',
    clientId = '',
    sims: number[] = [],
  ): Promise<MessageRow | undefined> {
    // Only the simulated device of test keys may take messages of any device.
    if (!deviceId && mode === 'live') throw new Error('a live claim needs a device');
    if (mode === 'live' && clientId) return this.claimWithFleet(deviceId, clientId, leaseMs, sims);
    const params: unknown[] = [leaseMs, mode, sims];
    if (deviceId) params.push(deviceId);
    const { rows } = await this.pool.query<MessageRow>(
      `WITH next AS (
         SELECT message_id FROM messages
         WHERE mode = $2 ${deviceId ? 'AND device_id = $4 AND NOT fleet' : ''} AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now()) AND ${SIM_FITS('$3')}
         ORDER BY priority, due_at, message_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE messages m SET lease_until = now() + make_interval(secs => $1::double precision / 1000),
                             claim_count = claim_count + 1
       FROM next WHERE m.message_id = next.message_id
       RETURNING m.*`,
      params,
    );
    return rows[0];
  }

  /**
   * One round trip: the head of the device's own queue (index
   * messages_queue), then the head of the client's fleet (messages_fleet_queue)
   * only if it goes before that one, so that a fleet message is locked only
   * when it is taken; the better of the two is claimed.
   */
  private async claimWithFleet(deviceId: string, clientId: string, leaseMs: number, sims: number[]): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>({
      name: 'messages-claim-fleet',
      text: `WITH own AS MATERIALIZED (
         SELECT message_id, priority, due_at FROM messages
         WHERE device_id = $2 AND mode = 'live' AND NOT fleet AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now()) AND ${SIM_FITS('$4')}
         ORDER BY priority, due_at, message_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ), pool AS MATERIALIZED (
         SELECT message_id, priority, due_at FROM messages
         WHERE client_id = $3 AND mode = 'live' AND fleet AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now()) AND avoid_device_id IS DISTINCT FROM $2 AND ${SIM_FITS('$4')}
           AND (priority, due_at, message_id) < (coalesce((SELECT priority FROM own), 32767),
                                                 coalesce((SELECT due_at FROM own), 'infinity'),
                                                 coalesce((SELECT message_id FROM own), ''))
         ORDER BY priority, due_at, message_id
         LIMIT 1
         FOR UPDATE SKIP LOCKED
       ), next AS (
         SELECT message_id FROM (SELECT * FROM pool UNION ALL SELECT * FROM own) c
         ORDER BY priority, due_at, message_id
         LIMIT 1
       )
       UPDATE messages m SET lease_until = now() + make_interval(secs => $1::double precision / 1000),
                             claim_count = claim_count + 1, device_id = $2, fleet = false
       FROM next WHERE m.message_id = next.message_id
       RETURNING m.*`,
      values: [leaseMs, deviceId, clientId, sims],
    });
    return rows[0];
  }
}
