import type { Pool, PoolClient } from '@smsgw/platform';
import { SEARCH_MAX_RESULTS, type Page } from '../domain/history';
import type { KeywordMatch } from '../domain/opt-out';
import { REPLY_WINDOW_HOURS, type ReceivedFilter, type ReplyTarget } from '../domain/received';
import type { Mode } from '../domain/message-row';

export interface ReceivedRow {
  id: string;
  client_id: string;
  mode: Mode;
  device_id: string;
  received_id: string;
  sim: number | null;
  from_number: string;
  body: string;
  received_at: Date;
  created_at: Date;
}

/** A received SMS as the consumer stores it (its first copy). */
export interface NewReceived {
  id: string;
  clientId: string;
  mode: Mode;
  deviceId: string;
  receivedId: string;
  sim: number | null;
  from: string;
  text: string;
  receivedAt: Date;
}

function conditions(values: unknown[], clientId: string, mode: Mode, filter: ReceivedFilter): string {
  const add = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const where = [`client_id = ${add(clientId)}`, `mode = ${add(mode)}`];
  if (filter.from) where.push(`from_number = ${add(filter.from)}`);
  if (filter.deviceId) where.push(`device_id = ${add(filter.deviceId)}`);
  if (filter.since) where.push(`received_at >= ${add(filter.since)}`);
  if (filter.until) where.push(`received_at < ${add(filter.until)}`);
  if (filter.textPattern) where.push(`body ILIKE ${add(filter.textPattern)} ESCAPE '\\'`);
  return where.join(' AND ');
}

/** How far back a received SMS may be dated (a phone keeps one until the hub has it; days offline at most). */
export const RECEIVED_AT_MAX_AGE_DAYS = 30;

/** The SMS the client's phones received: stored once per (device, received_id), listed, read. */
export class ReceivedRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Stores the record unless the phone's SMS is stored already, and returns
   * the stored row either way (the first copy's id and fields). A received_at
   * later than now (a phone's clock ahead) is stored as now, one more than
   * RECEIVED_AT_MAX_AGE_DAYS earlier as that long ago: a phone's clock (or a
   * forged frame) can neither date an SMS in the future nor make the
   * retention delete it at once.
   *
   * `keyword` (the text is an opt-out or start keyword) adds the sender to
   * the list of the record's client and mode, or removes it, by the same
   * statement and only when this call stored the record: a later copy of the
   * SMS changes nothing (nor undoes a removal made since).
   */
  async store(r: NewReceived, keyword?: KeywordMatch): Promise<ReceivedRow> {
    const key = [r.deviceId, r.receivedId];
    const { rows } = await this.pool.query<ReceivedRow>(
      `WITH inserted AS (
         INSERT INTO received_messages (id, client_id, mode, device_id, received_id, sim, from_number, body, received_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8,
                 greatest(least($9::timestamptz, now()), now() - make_interval(days => ${RECEIVED_AT_MAX_AGE_DAYS})), now())
         ON CONFLICT (device_id, received_id) DO NOTHING
         RETURNING *
       ), opted_out AS (
         INSERT INTO opt_outs (client_id, mode, phone_number, source, keyword)
         SELECT client_id, mode, from_number, 'keyword', $11 FROM inserted WHERE $10::text = 'add'
         ON CONFLICT (client_id, mode, phone_number) DO NOTHING
       ), restarted AS (
         DELETE FROM opt_outs o USING inserted i
         WHERE $10::text = 'remove' AND o.client_id = i.client_id AND o.mode = i.mode AND o.phone_number = i.from_number
       )
       SELECT * FROM inserted
       UNION ALL
       SELECT * FROM received_messages WHERE device_id = $4 AND received_id = $5 AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [r.id, r.clientId, r.mode, ...key, r.sim, r.from, r.text, r.receivedAt, keyword?.action ?? null, keyword?.keyword ?? null],
    );
    if (rows[0]) return rows[0];
    // A concurrent insert of the same SMS not yet visible to this statement's snapshot: read it now.
    const again = await this.pool.query<ReceivedRow>('SELECT * FROM received_messages WHERE device_id = $1 AND received_id = $2', key);
    if (!again.rows[0]) throw new Error(`received SMS ${r.deviceId}/${r.receivedId} neither inserted nor found`);
    return again.rows[0];
  }

  /**
   * The message a stored SMS answers: the newest of its client and mode to
   * its sender with `replies` and a webhook_url, queued in the 24 h before
   * it arrived and no later than it was stored (so every copy of the SMS
   * finds the same one). One probe in the partial index messages_replies.
   */
  async replyTarget(row: ReceivedRow): Promise<ReplyTarget | undefined> {
    const { rows } = await this.pool.query<ReplyTarget>({
      name: 'received-reply-target',
      text: `SELECT message_id, webhook_url FROM messages
             WHERE client_id = $1 AND mode = $2 AND to_number = $3 AND replies AND webhook_url IS NOT NULL
               AND queued_at > $4::timestamptz - make_interval(hours => $6::int) AND queued_at <= $5::timestamptz
             ORDER BY queued_at DESC
             LIMIT 1`,
      values: [row.client_id, row.mode, row.from_number, row.received_at, row.created_at, REPLY_WINDOW_HOURS],
    });
    return rows[0];
  }

  async find(clientId: string, mode: Mode, id: string): Promise<ReceivedRow | undefined> {
    const { rows } = await this.pool.query<ReceivedRow>('SELECT * FROM received_messages WHERE id = $1 AND client_id = $2 AND mode = $3', [
      id,
      clientId,
      mode,
    ]);
    return rows[0];
  }

  /**
   * One page, newest first, and the number of matching records (a search:
   * up to SEARCH_MAX_RESULTS, as the history's). The page comes first: a
   * short last page gives the total without counting.
   */
  async list(clientId: string, mode: Mode, filter: ReceivedFilter, page: Page): Promise<{ rows: ReceivedRow[]; total: number }> {
    const cap = filter.textPattern ? SEARCH_MAX_RESULTS : Infinity;
    const limit = Math.min(page.limit, cap - page.offset);
    let rows: ReceivedRow[] = [];
    if (limit > 0) {
      const values: unknown[] = [];
      const where = conditions(values, clientId, mode, filter);
      rows = (
        await this.pool.query<ReceivedRow>(
          `SELECT * FROM received_messages WHERE ${where}
           ORDER BY received_at DESC, id DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
          [...values, limit, page.offset],
        )
      ).rows;
      if (rows.length > 0 && rows.length < limit) return { rows, total: page.offset + rows.length };
      if (rows.length === 0 && page.offset === 0) return { rows, total: 0 };
    }
    const values: unknown[] = [];
    const where = conditions(values, clientId, mode, filter);
    const capped = filter.textPattern ? `LIMIT ${SEARCH_MAX_RESULTS}` : '';
    const { rows: counted } = await this.pool.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM (SELECT 1 FROM received_messages WHERE ${where} ${capped}) AS matches`,
      values,
    );
    return { rows, total: counted[0]!.total };
  }
}

/**
 * Within the retention's transaction: deletes the records stored more than
 * `days` days ago and adds their count to the daily rollups (`received`, by
 * UTC day of received_at). Returns how many left the table.
 */
export async function foldReceived(client: PoolClient, days: number): Promise<number> {
  const { rows } = await client.query<{ deleted: number }>(
    `WITH gone AS (
       DELETE FROM received_messages WHERE created_at < now() - make_interval(days => $1::int)
       RETURNING client_id, mode, device_id, (received_at AT TIME ZONE 'UTC')::date AS day
     ), folded AS (
       INSERT INTO daily_rollups AS r (client_id, mode, device_id, day, received)
       SELECT client_id, mode, device_id, day, count(*) FROM gone
       GROUP BY client_id, mode, device_id, day
       ORDER BY client_id, mode, device_id, day
       ON CONFLICT (client_id, mode, device_id, day) DO UPDATE SET received = r.received + excluded.received
     )
     SELECT count(*)::int AS deleted FROM gone`,
    [days],
  );
  return rows[0]!.deleted;
}
