import type { Pool } from '@smsgw/platform';

/** Which phone alert events had their e-mail (sent, or skipped: an address not verified, no SMTP). */
export class PhoneAlertRepository {
  constructor(private readonly pool: Pool) {}

  async done(eventId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM phone_alerts WHERE event_id = $1', [eventId]);
    return (rowCount ?? 0) > 0;
  }

  async record(eventId: string, clientId: string, kind: string, state: 'sent' | 'skipped'): Promise<void> {
    await this.pool.query(
      'INSERT INTO phone_alerts (event_id, client_id, kind, state) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING',
      [eventId, clientId, kind, state],
    );
  }
}
