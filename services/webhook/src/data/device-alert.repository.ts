import type { Pool } from '@smsgw/platform';

/** Which device.degraded events had their alert e-mail (sent, or skipped: an address not verified, no SMTP). */
export class DeviceAlertRepository {
  constructor(private readonly pool: Pool) {}

  async done(eventId: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('SELECT 1 FROM device_alerts WHERE event_id = $1', [eventId]);
    return (rowCount ?? 0) > 0;
  }

  async record(eventId: string, clientId: string, state: 'sent' | 'skipped'): Promise<void> {
    await this.pool.query('INSERT INTO device_alerts (event_id, client_id, state) VALUES ($1, $2, $3) ON CONFLICT (event_id) DO NOTHING', [
      eventId,
      clientId,
      state,
    ]);
  }
}
