import type { Pool } from '@smsgw/platform';

export interface DroppedDelivery {
  delivery_id: string;
  event_id: string;
  kind: string;
  client_id: string;
  endpoint_id: string | null;
  url: string;
  attempts: number;
  last_error: string | null;
  last_status: number | null;
  /** The batch of its last attempt: the deliveries of one batch get one alert. Null when posted alone. */
  batch_id: string | null;
}

const COLUMNS = `d.delivery_id, d.event_id, e.kind, d.client_id, d.endpoint_id, d.url, d.attempts, d.last_error, d.last_status, d.batch_id`;

/** The alert e-mails of dropped deliveries: which are due, and which were sent. */
export class AlertRepository {
  constructor(private readonly pool: Pool) {}

  /** Dropped deliveries whose alert e-mail is still to send, the oldest first (a batch's together). */
  async alertsDue(olderThanMs: number, limit: number): Promise<DroppedDelivery[]> {
    const { rows } = await this.pool.query<DroppedDelivery>(
      `SELECT ${COLUMNS}
       FROM deliveries d JOIN events e USING (event_id)
       WHERE d.alert_state = 'due' AND d.last_attempt_at < now() - $1 * interval '1 millisecond'
       ORDER BY d.last_attempt_at, d.batch_id, d.delivery_id LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows;
  }

  async dropped(deliveryId: string): Promise<DroppedDelivery | undefined> {
    return (await this.droppedMany([deliveryId]))[0];
  }

  /** Those of these deliveries whose alert is due, in one query (a batch dropped together). */
  async droppedMany(deliveryIds: readonly string[]): Promise<DroppedDelivery[]> {
    const { rows } = await this.pool.query<DroppedDelivery>(
      `SELECT ${COLUMNS}
       FROM deliveries d JOIN events e USING (event_id) WHERE d.delivery_id = ANY($1) AND d.alert_state = 'due'
       ORDER BY d.delivery_id`,
      [deliveryIds],
    );
    return rows;
  }

  /** Marks alerts sent; false when another replica (or the sweep) sent them first. */
  async markAlertSent(deliveryId: string): Promise<boolean> {
    return (await this.markAlertsSent([deliveryId])) > 0;
  }

  /** Marks the alerts of these deliveries sent, in one statement; how many were still due. */
  async markAlertsSent(deliveryIds: readonly string[]): Promise<number> {
    const { rowCount } = await this.pool.query(
      `UPDATE deliveries SET alert_state = 'sent' WHERE delivery_id = ANY($1) AND alert_state = 'due'`,
      [deliveryIds],
    );
    return rowCount ?? 0;
  }
}
