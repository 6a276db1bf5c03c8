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
}
/** The alert e-mails of dropped deliveries: which are due, and which were sent. */
export class AlertRepository {
  constructor(private readonly pool: Pool) {}

  /** Dropped deliveries whose alert e-mail is still to send, the oldest first. */
  async alertsDue(olderThanMs: number, limit: number): Promise<DroppedDelivery[]> {
    const { rows } = await this.pool.query<DroppedDelivery>(
      `SELECT d.delivery_id, d.event_id, e.kind, d.client_id, d.endpoint_id, d.url, d.attempts, d.last_error, d.last_status
       FROM deliveries d JOIN events e USING (event_id)
       WHERE d.alert_state = 'due' AND d.last_attempt_at < now() - $1 * interval '1 millisecond'
       ORDER BY d.last_attempt_at LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows;
  }

  async dropped(deliveryId: string): Promise<DroppedDelivery | undefined> {
    const { rows } = await this.pool.query<DroppedDelivery>(
      `SELECT d.delivery_id, d.event_id, e.kind, d.client_id, d.endpoint_id, d.url, d.attempts, d.last_error, d.last_status
       FROM deliveries d JOIN events e USING (event_id) WHERE d.delivery_id = $1 AND d.alert_state = 'due'`,
      [deliveryId],
    );
    return rows[0];
  }

  /** Marks an alert sent; false when another replica (or the sweep) sent it first. */
  async markAlertSent(deliveryId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE deliveries SET alert_state = 'sent' WHERE delivery_id = $1 AND alert_state = 'due'`,
      [deliveryId],
    );
    return (rowCount ?? 0) > 0;
  }
}
