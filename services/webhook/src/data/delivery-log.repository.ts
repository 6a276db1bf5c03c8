import { inTransaction, type Pool } from '@smsgw/platform';
import type { Mode } from './endpoint.repository';

export interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
}

export interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  kind: string;
  client_id: string;
  endpoint_id: string | null;
  url: string;
  replay_of: string | null;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  created_at: Date;
  attempt_log: AttemptRow[];
}

/** An event as stored, with the destinations it was first delivered to. */
export interface StoredEvent {
  mode: Mode;
  kind: string;
  data: string;
  traceparent: string | null;
  destinations: { delivery_id: string; destination: string; url: string; endpoint_id: string | null }[];
}

/** The delivery log: the events and deliveries a client reads and replays, and their retention. */
export class DeliveryLogRepository {
  constructor(private readonly pool: Pool) {}

  /** A stored event of a client (for a replay), with the destinations it was first delivered to. */
  async event(clientId: string, eventId: string): Promise<StoredEvent | undefined> {
    const { rows } = await this.pool.query<{ mode: Mode; kind: string; data: string; traceparent: string | null }>(
      `SELECT mode, kind, data, traceparent FROM events WHERE client_id = $1 AND event_id = $2`,
      [clientId, eventId],
    );
    if (!rows[0]) return undefined;
    const dests = await this.pool.query<{ delivery_id: string; destination: string; url: string; endpoint_id: string | null }>(
      `SELECT delivery_id, destination, url, endpoint_id FROM deliveries WHERE event_id = $1 AND replay_of IS NULL ORDER BY delivery_id`,
      [eventId],
    );
    return { ...rows[0], destinations: dests.rows };
  }

  /** The delivery log of a client, newest first, each delivery with its attempts. */
  async list(filter: { clientId: string; eventId?: string; endpointId?: string; before?: string; limit: number }): Promise<DeliveryRow[]> {
    const { rows } = await this.pool.query<DeliveryRow>(
      `SELECT d.delivery_id, d.event_id, e.kind, d.client_id, d.endpoint_id, d.url, d.replay_of, d.state, d.attempts,
              d.next_attempt_at, d.last_status, d.last_error, d.last_attempt_at, d.created_at,
              COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'attempted_at', a.attempted_at, 'http_status', a.http_status,
                                                          'latency_ms', a.latency_ms, 'error', a.error) ORDER BY a.attempt)
                        FROM attempts a WHERE a.delivery_id = d.delivery_id), '[]') AS attempt_log
       FROM deliveries d JOIN events e USING (event_id)
       WHERE d.client_id = $1
         AND ($2::text IS NULL OR d.event_id = $2)
         AND ($3::text IS NULL OR d.endpoint_id = $3)
         AND ($4::text IS NULL OR d.delivery_id < $4)
       ORDER BY d.delivery_id DESC LIMIT $5`,
      [filter.clientId, filter.eventId ?? null, filter.endpointId ?? null, filter.before ?? null, filter.limit],
    );
    return rows.map((r) => ({ ...r, attempt_log: r.attempt_log.map((a) => ({ ...a, attempted_at: new Date(a.attempted_at) })) }));
  }

  /**
   * Deletes events older than `days` with their deliveries and attempts (the delivery log's
   * retention), 5,000 events a transaction. There is no foreign key to cascade (migration 007):
   * each table has its own statement, so that each sees what the writers it waited for committed
   * (a writer locks the event or the delivery it adds to), and no delivery or attempt is left
   * without its event.
   */
  async deleteOlderThan(days: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const count = await inTransaction(this.pool, async (tx) => {
        const events = await tx.query<{ event_id: string }>(
          `DELETE FROM events WHERE event_id IN (
             SELECT event_id FROM events WHERE created_at < now() - $1 * interval '1 day' LIMIT 5000)
           RETURNING event_id`,
          [days],
        );
        if (events.rows.length === 0) return 0;
        const deliveries = await tx.query<{ delivery_id: string }>(
          `DELETE FROM deliveries WHERE event_id = ANY($1) RETURNING delivery_id`,
          [events.rows.map((r) => r.event_id)],
        );
        if (deliveries.rows.length > 0) {
          await tx.query(`DELETE FROM attempts WHERE delivery_id = ANY($1)`, [deliveries.rows.map((r) => r.delivery_id)]);
        }
        return events.rows.length;
      });
      deleted += count;
      if (count < 5000) return deleted;
    }
  }
}
