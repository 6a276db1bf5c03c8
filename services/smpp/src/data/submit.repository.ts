import type { Pool } from '@smsgw/platform';

export interface SubmitRow {
  message_id: string;
  client_id: string;
  mode: 'live' | 'test';
  registered_delivery: number;
  source_addr: string;
  destination_addr: string;
  text_start: string;
  submitted_at: Date;
}

/** The messages submitted over SMPP that wait for their receipt (migration 001). */
export class SubmitRepository {
  constructor(private readonly pool: Pool) {}

  async record(row: Omit<SubmitRow, 'submitted_at'>): Promise<void> {
    await this.pool.query(
      `INSERT INTO submits (message_id, client_id, mode, registered_delivery, source_addr, destination_addr, text_start)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (message_id) DO NOTHING`,
      [row.message_id, row.client_id, row.mode, row.registered_delivery, row.source_addr, row.destination_addr, row.text_start],
    );
  }

  /** The submits of these messages, by id (those not submitted over SMPP, or not waiting, are absent). */
  async find(messageIds: readonly string[]): Promise<Map<string, SubmitRow>> {
    if (messageIds.length === 0) return new Map();
    const { rows } = await this.pool.query<SubmitRow>('SELECT * FROM submits WHERE message_id = ANY($1)', [messageIds]);
    return new Map(rows.map((r) => [r.message_id, r]));
  }

  /** Drops the submits older than `days` (their message ended long ago, or never will). */
  async deleteOlderThan(days: number): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM submits WHERE submitted_at < now() - make_interval(days => $1)', [days]);
    return rowCount ?? 0;
  }
}
