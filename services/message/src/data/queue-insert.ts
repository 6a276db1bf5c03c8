import { FAILURE_MESSAGES, type Pool, type PoolClient } from '@smsgw/platform';
import { aheadWithin, EXACT_UP_TO } from '../domain/queue-order';
import { messageColumns } from './message-conditions';
import type { MessageRow, NewBatch, NewMessage, PlacedMessage } from '../domain/message-row';

/** Whether the messages are a batch's, all with one text: message_texts then holds it once. */
function sharesOneText(messages: NewMessage[], batch: NewBatch | undefined): boolean {
  return batch !== undefined && messages.length > 1 && messages.every((m) => m.text === messages[0]!.text);
}

/**
 * The statement that stores messages where the claim will find them (see
 * `QueueRepository.insertPlaced`): their batch and Idempotency-Keys with them,
 * the held state of a paused campaign's, and for each how many messages of its
 * device go before it and whether that device had anything to claim. Its own
 * file as `otp-insert.ts` is: one statement of a hundred lines.
 */
export async function insertQueuedRows(
  db: Pool | PoolClient,
  messages: NewMessage[],
  batch: NewBatch | undefined,
  keyTtlSeconds: number,
  leaveListedOut = false,
): Promise<PlacedMessage[]> {
  const col = <K extends keyof NewMessage>(k: K) => messages.map((m) => m[k]);
  const { rows } = await db.query<MessageRow & { queued_before: number; long_queue: boolean; device_was_idle: boolean }>({
    name: 'messages-insert',
    text: `WITH given AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::smallint[], $8::jsonb[],
                              $9::text[], $10::smallint[], $11::text[], $12::timestamptz[], $17::text[], $18::text[], $22::text[],
                              $23::int[], $24::boolean[], $25::boolean[], $27::smallint[], $28::boolean[], $29::text[], $30::boolean[])
              WITH ORDINALITY AS m(message_id, client_id, mode, device_id, to_number, body, priority, metadata, webhook_url,
                                   parts, encoding, scheduled_at, idempotency_key, request_hash, traceparent, ttl_seconds, pinned,
                                   opted_out, requested_sim, replies, campaign_id, fleet, ord)
       ), input AS (
         -- $31: a message to a number on its client's list (or marked so) is left out: not stored, its key not taken.
         SELECT * FROM given g
         WHERE NOT ($31::boolean AND (g.opted_out
                    OR EXISTS (SELECT 1 FROM opt_outs o WHERE o.client_id = g.client_id AND o.mode = g.mode AND o.phone_number = g.to_number)))
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
                               failed_at, error_code, error_message, requested_sim, sim, replies, campaign_id, held, fleet)
         SELECT m.message_id, m.client_id, m.mode, m.device_id, (SELECT batch_id FROM batch), m.to_number, m.body, m.priority,
                m.metadata, m.webhook_url, m.parts, m.encoding, m.scheduled_at, coalesce(m.scheduled_at, now()),
                CASE WHEN m.opted_out THEN 'failed' ELSE 'queued' END, m.traceparent,
                CASE WHEN m.ttl_seconds > 0 THEN coalesce(m.scheduled_at, now()) + make_interval(secs => m.ttl_seconds) END, m.pinned,
                CASE WHEN m.opted_out THEN now() END, CASE WHEN m.opted_out THEN 'OPTED_OUT' END,
                CASE WHEN m.opted_out THEN $26::text END, m.requested_sim, m.requested_sim, m.replies, m.campaign_id,
                NOT m.opted_out AND EXISTS (SELECT 1 FROM campaigns c WHERE c.campaign_id = m.campaign_id AND c.status = 'paused'),
                m.fleet AND NOT m.opted_out
         FROM input m
         WHERE (m.idempotency_key IS NULL OR m.message_id IN (SELECT message_id FROM claimed WHERE message_id IS NOT NULL))
           AND ($19::text IS NULL OR EXISTS (SELECT 1 FROM claimed WHERE batch_id IS NOT NULL))
         ORDER BY m.ord
         RETURNING ${messageColumns()}
       ), texts AS (
         -- $32: the batch's messages share one text, stored once under the batch's id.
         INSERT INTO message_texts (message_id, client_id, mode, body, batch)
         SELECT message_id, client_id, mode, body, false FROM inserted WHERE NOT $32::boolean
         UNION ALL
         (SELECT batch_id, client_id, mode, body, true FROM inserted WHERE $32::boolean LIMIT 1)
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
         -- Unordered on purpose: this plan is made once per connection, and one made while the table
         -- was small reads by a sequential scan, which stops at the 100th row here but would read and
         -- sort the whole queue for each send under an ORDER BY (seen in make bench: 4 times the
         -- Postgres CPU a send). A priority-1 send behind thousands of others reads until it finds 100.
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
      messages.map((m) => m.fleet === true),
      leaveListedOut,
      sharesOneText(messages, batch),
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
