import { inTransaction, type Pool } from '@smsgw/platform';
import { ALLOWED_FROM, type MessageStatus, type ReportedStatus } from '../domain/message-status';

export type Mode = 'live' | 'test';

export interface MessageRow {
  message_id: string;
  client_id: string;
  mode: Mode;
  device_id: string;
  batch_id: string | null;
  status: MessageStatus;
  to_number: string;
  body: string;
  priority: number;
  metadata: Record<string, unknown> | null;
  webhook_url: string | null;
  parts: number;
  encoding: string;
  created_at: Date;
  queued_at: Date;
  scheduled_at: Date | null;
  due_at: Date;
  claim_count: number;
  accepted_at: Date | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  cancelled_at: Date | null;
  error_code: string | null;
  error_message: string | null;
  /** An OTP's full text, sealed, until the message is final (see domain/otp-seal.ts). */
  otp_sealed_text: Buffer | null;
  /** An OTP's expiry: not handed out after it. */
  expires_at: Date | null;
  /** The trace of the request that queued it. */
  traceparent: string | null;
}

export interface NewMessage {
  messageId: string;
  clientId: string;
  mode: Mode;
  deviceId: string;
  batchId: string | null;
  to: string;
  text: string;
  priority: number;
  metadata: Record<string, unknown> | null;
  webhookUrl: string | null;
  parts: number;
  encoding: string;
  scheduledAt: Date | null;
  /** The request's Idempotency-Key, for a single send (a batch's key goes with the batch). */
  idempotency?: Idempotency | null;
  /** The trace context of the request that queued it (W3C traceparent), continued by the hub. */
  traceparent?: string | null;
}

/** An Idempotency-Key and the hash of the request that came with it. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

/** A batch stored with its messages. */
export interface NewBatch {
  batchId: string;
  clientId: string;
  mode: Mode;
  idempotency?: Idempotency | null;
}

/** What an Idempotency-Key already stored points to. */
export interface StoredKey {
  client_id: string;
  mode: Mode;
  idempotency_key: string;
  request_hash: string;
  message_id: string | null;
  batch_id: string | null;
}

export interface PlacedMessage {
  row: MessageRow;
  /** Messages of its device the claim takes before this one. */
  ahead: number;
  /**
   * Whether its device had nothing to claim before this statement: its hub
   * may be asleep and needs a wake-up. A busy device's hub claims again by
   * itself once its phone may send.
   */
  deviceWasIdle: boolean;
}

/** Messages ahead of a new one counted one by one; past this, the device's queued total stands in. */
const EXACT_UP_TO = 100;

/**
 * For each row, how many of the other rows (stored in the same statement)
 * the claim takes before it: same device and mode, due no later, then
 * priority 1 first, then the oldest due, then the smallest id.
 */
export function aheadWithin(rows: Pick<MessageRow, 'message_id' | 'device_id' | 'mode' | 'priority' | 'due_at'>[]): number[] {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const key = `${r.device_id}\u0000${r.mode}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const due = rows.map((r) => r.due_at.getTime());
  const out = new Array<number>(rows.length).fill(0);
  for (const group of groups.values()) {
    // In claim order, a row waits for those before it that are due no later.
    group.sort((a, b) => rows[a]!.priority - rows[b]!.priority || due[a]! - due[b]! || (rows[a]!.message_id < rows[b]!.message_id ? -1 : 1));
    group.forEach((i, k) => {
      let ahead = 0;
      for (let j = 0; j < k; j++) if (due[group[j]!]! <= due[i]!) ahead++;
      out[i] = ahead;
    });
  }
  return out;
}

const CLAIMABLE = `status = 'queued' AND accepted_at IS NULL AND (lease_until IS NULL OR lease_until < now())`;

export class MessageRepository {
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
   *
   * Idempotency keys (of single sends, or of the batch) are stored by the same
   * statement, under a unique constraint per client and mode: a message whose
   * key is already stored (by a committed or a concurrent statement, which
   * this one then waits for) is not inserted and is absent from the result;
   * `findKeys` tells what the key points to. A key older than `keyTtlSeconds`
   * is taken over. No two messages of one call may carry the same key.
   */
  async insertPlaced(messages: NewMessage[], batch?: NewBatch, keyTtlSeconds = 86_400): Promise<PlacedMessage[]> {
    const col = <K extends keyof NewMessage>(k: K) => messages.map((m) => m[k]);
    const { rows } = await this.pool.query<MessageRow & { queued_before: number; long_queue: boolean; device_was_idle: boolean }>({
      name: 'messages-insert',
      text: `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::smallint[], $8::jsonb[],
                              $9::text[], $10::smallint[], $11::text[], $12::timestamptz[], $17::text[], $18::text[], $22::text[])
              WITH ORDINALITY AS m(message_id, client_id, mode, device_id, to_number, body, priority, metadata, webhook_url,
                                   parts, encoding, scheduled_at, idempotency_key, request_hash, traceparent, ord)
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
                               webhook_url, parts, encoding, scheduled_at, due_at, status, traceparent)
         SELECT m.message_id, m.client_id, m.mode, m.device_id, (SELECT batch_id FROM batch), m.to_number, m.body, m.priority,
                m.metadata, m.webhook_url, m.parts, m.encoding, m.scheduled_at, coalesce(m.scheduled_at, now()), 'queued', m.traceparent
         FROM input m
         WHERE (m.idempotency_key IS NULL OR m.message_id IN (SELECT message_id FROM claimed WHERE message_id IS NOT NULL))
           AND ($19::text IS NULL OR EXISTS (SELECT 1 FROM claimed WHERE batch_id IS NOT NULL))
         ORDER BY m.ord
         RETURNING *
       ), heads AS (
         SELECT DISTINCT client_id, mode, device_id, priority, due_at FROM inserted
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
             WHERE q.device_id = h.device_id AND q.mode = h.mode AND q.status = 'queued' AND q.accepted_at IS NULL
               AND q.due_at <= h.due_at AND (q.priority < h.priority OR (q.priority = h.priority AND q.due_at < h.due_at))
             LIMIT ${EXACT_UP_TO}
           ) ahead
         ) x
         CROSS JOIN LATERAL (
           SELECT count(*) = 0 AS device_was_idle FROM (
             SELECT 1 FROM messages q
             WHERE q.device_id = h.device_id AND q.mode = h.mode AND q.status = 'queued' AND q.accepted_at IS NULL
               AND (q.lease_until IS NULL OR q.lease_until < now()) AND q.due_at <= now()
             LIMIT 1
           ) claimable
         ) w
       )
       SELECT i.*, p.queued_before, p.long_queue, p.device_was_idle
       FROM inserted i
       JOIN placed p ON (p.client_id, p.mode, p.device_id, p.priority, p.due_at) = (i.client_id, i.mode, i.device_id, i.priority, i.due_at)`,
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
      ],
    });
    const byId = new Map(rows.map((r) => [r.message_id, r]));
    const ordered = messages.flatMap((m) => byId.get(m.messageId) ?? []);
    const ahead = aheadWithin(ordered);
    return ordered.map(({ queued_before, long_queue, device_was_idle, ...row }, i) => ({
      row,
      ahead: long_queue ? Math.max(EXACT_UP_TO, queued_before + ahead[i]!) : queued_before + ahead[i]!,
      deviceWasIdle: device_was_idle,
    }));
  }

  /** Messages waiting for a phone now (due, not taken), and how long the oldest has waited, by mode. */
  async queueStats(): Promise<{ mode: Mode; depth: number; oldest_seconds: number }[]> {
    const { rows } = await this.pool.query<{ mode: Mode; depth: number; oldest_seconds: number }>(
      `SELECT mode, count(*)::int AS depth, coalesce(extract(epoch FROM now() - min(due_at)), 0)::float8 AS oldest_seconds
       FROM messages WHERE status = 'queued' AND accepted_at IS NULL AND due_at <= now() GROUP BY mode`,
    );
    return rows;
  }

  /** What each of these keys (of a client and mode) points to, when stored. */
  async findKeys(keys: { clientId: string; mode: Mode; key: string }[]): Promise<StoredKey[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.pool.query<StoredKey>(
      `SELECT k.client_id, k.mode, k.idempotency_key, k.request_hash, k.message_id, k.batch_id
       FROM idempotency_keys k
       JOIN unnest($1::text[], $2::text[], $3::text[]) AS x(client_id, mode, idempotency_key)
         ON (k.client_id, k.mode, k.idempotency_key) = (x.client_id, x.mode, x.idempotency_key)`,
      [keys.map((k) => k.clientId), keys.map((k) => k.mode), keys.map((k) => k.key)],
    );
    return rows;
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
                  WHERE q.device_id = m.device_id AND q.mode = m.mode AND q.status = 'queued' AND q.accepted_at IS NULL
                    AND q.due_at <= m.due_at AND (q.priority, q.due_at, q.message_id) < (m.priority, m.due_at, m.message_id)
                  LIMIT ${EXACT_UP_TO}
                ) a
              ) ELSE 0 END AS ahead
       FROM messages m WHERE m.message_id = ANY($1::text[])`,
      [messageIds],
    );
    return rows.map(({ ahead, ...row }) => ({ row, ahead }));
  }

  /** The messages of a batch, in the order they were given (ids grow with it). */
  async findBatch(batchId: string): Promise<MessageRow[]> {
    const { rows } = await this.pool.query<MessageRow>('SELECT * FROM messages WHERE batch_id = $1 ORDER BY message_id', [batchId]);
    return rows;
  }

  /**
   * Stores an OTP's SMS: `message.text` is the masked text, `sealedText` the
   * full one, sealed. Tells how many messages of its device the claim takes
   * before it (priority 1: only priority-1 messages due no later, up to 100).
   */
  /**
   * Stores an OTP's SMS. Its id is the caller's: the same id again (the otp
   * service completing an OTP after a lost answer) stores nothing and gives
   * the message stored the first time (`created` false), if it is this
   * client's; undefined if the id belongs to someone else.
   */
  async insertOtp(message: NewMessage, sealedText: Buffer, expiresAt: Date): Promise<{ row: MessageRow; ahead: number; created: boolean } | undefined> {
    const m = message;
    const { rows } = await this.pool.query<MessageRow & { ahead: number }>(
      `WITH inserted AS (
         INSERT INTO messages (message_id, client_id, mode, device_id, to_number, body, priority, metadata, parts, encoding,
                               due_at, status, otp_sealed_text, expires_at, traceparent)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), 'queued', $11, $12, $13)
         ON CONFLICT (message_id) DO NOTHING
         RETURNING *
       )
       SELECT i.*, (
         SELECT count(*)::int FROM (
           SELECT 1 FROM messages q
           WHERE q.device_id = i.device_id AND q.mode = i.mode AND q.status = 'queued' AND q.accepted_at IS NULL
             AND q.priority <= i.priority AND q.due_at <= i.due_at
           LIMIT ${EXACT_UP_TO}
         ) a
       ) AS ahead
       FROM inserted i`,
      [m.messageId, m.clientId, m.mode, m.deviceId, m.to, m.text, m.priority, m.metadata ? JSON.stringify(m.metadata) : null, m.parts, m.encoding, sealedText, expiresAt, m.traceparent || null],
    );
    if (rows[0]) {
      const { ahead, ...row } = rows[0];
      return { row, ahead, created: true };
    }
    const existing = await this.find(m.clientId, m.messageId, m.mode);
    return existing && { row: existing, ahead: 0, created: false };
  }

  /**
   * Fails the OTP messages still waiting for a phone past their expiry
   * (`EXPIRED`, at their expiry time, the sealed text erased), at most
   * `limit` at a time. `publish` gets the failed rows before the commit: if
   * it throws, nothing changes and the next sweep tries again; a commit lost
   * after it only publishes the same events again (same ids).
   */
  async expireOtpMessages(errorMessage: string, publish: (rows: MessageRow[]) => Promise<void>, limit = 500): Promise<number> {
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
                               otp_sealed_text = NULL, lease_until = NULL
         FROM due WHERE m.message_id = due.message_id
         RETURNING m.*`,
        [errorMessage, limit],
      );
      if (rows.length > 0) await publish(rows);
      return rows.length;
    });
  }

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

  /**
   * Cancels a message that is queued and not being handed to a phone. The row
   * lock makes this and a concurrent claim exclusive: exactly one wins.
   */
  async cancel(clientId: string, messageId: string, mode: Mode): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = 'cancelled', cancelled_at = now(), otp_sealed_text = NULL
       WHERE message_id = $1 AND client_id = $2 AND mode = $3 AND ${CLAIMABLE}
       RETURNING *`,
      [messageId, clientId, mode],
    );
    return rows[0];
  }

  /**
   * Takes the next due message (priority 1 first, then oldest) under a lease:
   * the device's live messages, or in test mode the device's test messages,
   * or with no device any client's test messages (the simulated device).
   */
  async claimNext(deviceId: string, leaseMs: number, mode: Mode = 'live'): Promise<MessageRow | undefined> {
    // Only the simulated device of test keys may take messages of any device.
    if (!deviceId && mode === 'live') throw new Error('a live claim needs a device');
    const params: unknown[] = [leaseMs, mode];
    if (deviceId) params.push(deviceId);
    const { rows } = await this.pool.query<MessageRow>(
      `WITH next AS (
         SELECT message_id FROM messages
         WHERE mode = $2 ${deviceId ? 'AND device_id = $3' : ''} AND ${CLAIMABLE} AND due_at <= now()
           AND (expires_at IS NULL OR expires_at > now())
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
   * The phone has the message in its outbox: stop offering it, and from now on
   * refuse to cancel it. Returns the message's status afterwards (undefined for
   * an unknown message or another device's).
   */
  async markAccepted(messageId: string, deviceId: string, at: Date): Promise<{ status: MessageRow['status']; accepted: boolean } | undefined> {
    const { rows } = await this.pool.query<{ status: MessageRow['status']; accepted: boolean }>(
      `WITH moved AS (
         UPDATE messages SET accepted_at = coalesce(accepted_at, $3), lease_until = NULL
         WHERE message_id = $1 AND device_id = $2 AND status = 'queued'
         RETURNING status, true AS accepted
       )
       SELECT status, accepted FROM moved
       UNION ALL
       SELECT status, accepted_at IS NOT NULL AS accepted FROM messages
       WHERE message_id = $1 AND device_id = $2 AND NOT EXISTS (SELECT 1 FROM moved)`,
      [messageId, deviceId, at],
    );
    return rows[0];
  }

  /**
   * Moves the message to `status` if the state machine allows it from its
   * current status; returns the updated row, or undefined when it did not move.
   */
  async applyReport(
    messageId: string,
    deviceId: string,
    status: ReportedStatus,
    at: Date,
    error?: { code: string; message: string },
  ): Promise<MessageRow | undefined> {
    const { rows } = await this.pool.query<MessageRow>(
      `UPDATE messages SET status = $3::text, lease_until = NULL, accepted_at = coalesce(accepted_at, $4), otp_sealed_text = NULL,
         sent_at = CASE WHEN $3::text IN ('sent', 'delivered') THEN coalesce(sent_at, $4) ELSE sent_at END,
         delivered_at = CASE WHEN $3::text = 'delivered' THEN $4 ELSE delivered_at END,
         failed_at = CASE WHEN $3::text = 'failed' THEN $4 ELSE failed_at END,
         error_code = coalesce($5::text, error_code),
         error_message = coalesce($6::text, error_message)
       WHERE message_id = $1 AND device_id = $2 AND status = ANY($7::text[])
       RETURNING *`,
      [messageId, deviceId, status, at, error?.code ?? null, error?.message ?? null, ALLOWED_FROM[status]],
    );
    return rows[0];
  }

  async queueDepths(deviceIds: string[]): Promise<Map<string, number>> {
    const { rows } = await this.pool.query<{ device_id: string; depth: number }>(
      `SELECT device_id, count(*)::int AS depth FROM messages
       WHERE device_id = ANY($1::text[]) AND mode = 'live' AND status = 'queued' AND accepted_at IS NULL
       GROUP BY device_id`,
      [deviceIds],
    );
    return new Map(rows.map((r) => [r.device_id, r.depth]));
  }
}
