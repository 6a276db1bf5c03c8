import type { Pool } from '@smsgw/platform';
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
}

const CLAIMABLE = `status = 'queued' AND accepted_at IS NULL AND (lease_until IS NULL OR lease_until < now())`;

export class MessageRepository {
  constructor(private readonly pool: Pool) {}

  /** Inserts all messages (and their batch, if any) in one statement. */
  async insert(messages: NewMessage[], batch?: { batchId: string; clientId: string; mode: Mode }): Promise<MessageRow[]> {
    const col = <K extends keyof NewMessage>(k: K) => messages.map((m) => m[k]);
    const { rows } = await this.pool.query<MessageRow>(
      `WITH batch AS (
         INSERT INTO batches (batch_id, client_id, mode, total)
         SELECT $13::text, $2::text, $3::text, $14::int WHERE $13::text IS NOT NULL
         RETURNING batch_id
       )
       INSERT INTO messages (message_id, client_id, mode, device_id, batch_id, to_number, body, priority, metadata,
                             webhook_url, parts, encoding, scheduled_at, due_at, status)
       SELECT m.message_id, $2, $3, m.device_id, (SELECT batch_id FROM batch), m.to_number, m.body, m.priority, m.metadata,
              m.webhook_url, m.parts, m.encoding, m.scheduled_at, coalesce(m.scheduled_at, now()), 'queued'
       FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::smallint[], $8::jsonb[], $9::text[], $10::smallint[],
                   $11::text[], $12::timestamptz[])
            WITH ORDINALITY AS m(message_id, device_id, to_number, body, priority, metadata, webhook_url, parts, encoding,
                                 scheduled_at, ord)
       ORDER BY m.ord
       RETURNING *`,
      [
        col('messageId'),
        messages[0]!.clientId,
        messages[0]!.mode,
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
      ],
    );
    return rows;
  }

  /** How many claimable messages of the device would go before one of this priority and due time. */
  /**
   * How many messages of the device go before a new one of this priority and
   * due time: the input of `estimated_delivery`. Counted one by one up to 100;
   * a longer queue is read from the per-day counts (every queued message of
   * the device, whatever its priority), so that a long queue does not make
   * every send slower.
   */
  async queuePosition(row: Pick<MessageRow, 'client_id' | 'device_id' | 'mode' | 'priority' | 'due_at'>): Promise<number> {
    const EXACT_UP_TO = 100;
    const { rows } = await this.pool.query<{ ahead: number }>(
      `SELECT count(*)::int AS ahead FROM (
         SELECT 1 FROM messages
         WHERE device_id = $1 AND mode = $4 AND status = 'queued' AND accepted_at IS NULL AND due_at <= $3
           AND (priority < $2 OR (priority = $2 AND due_at < $3))
         LIMIT ${EXACT_UP_TO}
       ) ahead`,
      [row.device_id, row.priority, row.due_at, row.mode],
    );
    if (rows[0]!.ahead < EXACT_UP_TO) return rows[0]!.ahead;
    const queued = await this.pool.query<{ n: number }>(
      `SELECT coalesce(sum(n), 0)::int AS n FROM message_counts
       WHERE client_id = $1 AND mode = $2 AND device_id = $3 AND status = 'queued'`,
      [row.client_id, row.mode, row.device_id],
    );
    return Math.max(EXACT_UP_TO, queued.rows[0]!.n - 1);
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
      `UPDATE messages SET status = 'cancelled', cancelled_at = now()
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

  /** The phone has the message in its outbox: stop offering it. */
  async markAccepted(messageId: string, deviceId: string, at: Date): Promise<void> {
    await this.pool.query(
      `UPDATE messages SET accepted_at = coalesce(accepted_at, $3), lease_until = NULL
       WHERE message_id = $1 AND device_id = $2 AND status = 'queued'`,
      [messageId, deviceId, at],
    );
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
      `UPDATE messages SET status = $3::text, lease_until = NULL, accepted_at = coalesce(accepted_at, $4),
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
