import { inTransaction, type Pool } from '@smsgw/platform';
import type { OutgoingDeliver } from '../domain/deliver';

export interface NewPending {
  clientId: string;
  mode: 'live' | 'test';
  kind: 'receipt' | 'received';
  dedupeKey: string;
  pdu: OutgoingDeliver;
}

export interface PendingRow {
  pending_id: string;
  pdu: OutgoingDeliver;
}

/**
 * What waits for a receiver (migration 001), in order per client and mode. Taken under a lease
 * (one replica sends a row at a time), deleted once a receiver answered it, given back when its
 * session ended first.
 */
export class PendingRepository {
  constructor(
    private readonly pool: Pool,
    private readonly maxPerClient: number,
  ) {}

  /**
   * Stores events' deliver_sm (one an event: a dedupe key already stored is skipped), and with
   * them the removal of the submits they end; then keeps each client's newest `maxPerClient`.
   * Returns the clients and modes that got rows.
   */
  async add(rows: readonly NewPending[], endedSubmits: readonly string[]): Promise<{ clientId: string; mode: string }[]> {
    if (rows.length === 0 && endedSubmits.length === 0) return [];
    return inTransaction(this.pool, async (client) => {
      const added = new Map<string, { clientId: string; mode: string }>();
      for (const r of rows) {
        const { rowCount } = await client.query(
          `INSERT INTO pending (client_id, mode, kind, dedupe_key, pdu) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (dedupe_key) DO NOTHING`,
          [r.clientId, r.mode, r.kind, r.dedupeKey, JSON.stringify(r.pdu)],
        );
        if (rowCount) added.set(`${r.clientId}\n${r.mode}`, { clientId: r.clientId, mode: r.mode });
      }
      if (endedSubmits.length > 0) await client.query('DELETE FROM submits WHERE message_id = ANY($1)', [endedSubmits]);
      for (const { clientId, mode } of added.values()) {
        await client.query(
          `DELETE FROM pending WHERE client_id = $1 AND mode = $2 AND pending_id <= (
             SELECT pending_id FROM pending WHERE client_id = $1 AND mode = $2 ORDER BY pending_id DESC OFFSET $3 LIMIT 1)`,
          [clientId, mode, this.maxPerClient],
        );
      }
      return [...added.values()];
    });
  }

  /** Up to `limit` rows of the client and mode that no one is sending, oldest first, leased for `leaseMs`. */
  async take(clientId: string, mode: string, limit: number, leaseMs: number): Promise<PendingRow[]> {
    const { rows } = await this.pool.query<PendingRow>(
      `UPDATE pending SET leased_until = now() + make_interval(secs => $4 / 1000.0)
       WHERE pending_id IN (
         SELECT pending_id FROM pending WHERE client_id = $1 AND mode = $2 AND (leased_until IS NULL OR leased_until < now())
         ORDER BY pending_id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING pending_id::text, pdu`,
      [clientId, mode, limit, leaseMs],
    );
    return rows.sort((a, b) => Number(a.pending_id) - Number(b.pending_id));
  }

  /** A receiver answered it: it is done. */
  async done(pendingId: string): Promise<void> {
    await this.pool.query('DELETE FROM pending WHERE pending_id = $1', [pendingId]);
  }

  /** Its session ended before an answer: it waits for the next bind. */
  async giveBack(pendingIds: readonly string[]): Promise<void> {
    if (pendingIds.length === 0) return;
    await this.pool.query('UPDATE pending SET leased_until = NULL WHERE pending_id = ANY($1::bigint[])', [pendingIds]);
  }

  async deleteOlderThan(days: number): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM pending WHERE created_at < now() - make_interval(days => $1)', [days]);
    return rowCount ?? 0;
  }
}
