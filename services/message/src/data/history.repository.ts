import { inTransaction, splitByDay, type Pool, type StatsPeriod } from '@smsgw/platform';
import { SEARCH_MAX_RESULTS, type HistoryFilter, type Page } from '../domain/history';
import type { DayCounts } from '../domain/stats';
import type { MessageRow, Mode } from '../domain/message-row';
import { foldReceived } from './received.repository';
import { matchCountStatement, messageConditions, pageStatement, Params, textAlone, type Statement } from './history-statements';

/** What a retention run removed: messages, and received SMS. */
export interface RetentionRun {
  deleted: number;
  received: number;
}

/** History pages, statistics and the retention that folds old messages into daily rollups. */
export class HistoryRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * One page, newest first, and the number of matching messages. The page
   * comes first: when it is the last one its length gives the total, and the
   * count is skipped. A search reaches its SEARCH_MAX_RESULTS newest matches
   * only, and counts no further.
   */
  async list(clientId: string, mode: Mode, filter: HistoryFilter, page: Page): Promise<{ rows: MessageRow[]; total: number }> {
    const cap = filter.textPattern ? SEARCH_MAX_RESULTS : Infinity;
    const limit = Math.min(page.limit, cap - page.offset);
    let rows: MessageRow[] = [];
    if (limit > 0) {
      const statement = pageStatement(clientId, mode, filter, limit, page.offset);
      rows = (await this.pool.query<MessageRow>(await this.cheaper(statement, filter))).rows;
      if (rows.length > 0 && rows.length < limit) return { rows, total: page.offset + rows.length };
      if (rows.length === 0 && page.offset === 0) return { rows, total: 0 };
    }
    return { rows, total: await this.count(clientId, mode, filter) };
  }

  /**
   * A search's statement written both ways, the one Postgres expects to cost less; other
   * statements as they are. Written through `message_texts` alone, a walk of the history looks
   * every message's text up there: a name in one message of forty took 35 ms for its page, against
   * 4 read on the row. Written both ways in one statement, the planner counts the text's condition
   * twice (on each table) and expects a few dozen matches where there are thousands. Planned
   * apart, each way counts it once. The price: one more planning, about a millisecond, in parallel.
   */
  private async cheaper(statement: Statement, filter: HistoryFilter): Promise<{ text: string; values: unknown[] }> {
    if (!filter.textPattern) return statement('row');
    const ways = [statement('texts'), statement('row')];
    const costs = await Promise.all(
      ways.map(async ({ text, values }) => {
        const { rows } = await this.pool.query<{ 'QUERY PLAN': [{ Plan: { 'Total Cost': number } }] }>(
          `EXPLAIN (FORMAT JSON) ${text}`,
          values,
        );
        return rows[0]!['QUERY PLAN'][0].Plan['Total Cost'];
      }),
    );
    return costs[0]! <= costs[1]! ? ways[0]! : ways[1]!;
  }

  /**
   * The number of matching messages, exact (a search: up to its cap). Without a recipient or a search,
   * the whole days of the range are summed from message_counts and only the
   * partial days at its ends are counted row by row; one statement, so both
   * parts see the same moment.
   */
  private async count(clientId: string, mode: Mode, filter: HistoryFilter): Promise<number> {
    if (filter.textPattern) return this.countMatches(clientId, mode, filter);
    const params = new Params();
    let sql: string;
    if (filter.to) {
      sql = `SELECT count(*)::int AS total FROM messages WHERE ${messageConditions(params, clientId, mode, filter, filter)}`;
    } else {
      const { days, partials } = splitByDay(filter);
      const parts = partials.map(
        (range) => `(SELECT count(*) FROM messages WHERE ${messageConditions(params, clientId, mode, filter, range)})`,
      );
      if (days) {
        const where = [`client_id = ${params.add(clientId)}`, `mode = ${params.add(mode)}`];
        if (filter.status) where.push(`status = ${params.add(filter.status)}`);
        if (filter.deviceId) where.push(`device_id = ${params.add(filter.deviceId)}`);
        if (days.first) where.push(`day >= ${params.add(days.first)}::date`);
        if (days.last) where.push(`day <= ${params.add(days.last)}::date`);
        parts.push(`(SELECT coalesce(sum(n), 0) FROM message_counts WHERE ${where.join(' AND ')})`);
      }
      sql = `SELECT (${parts.join(' + ')})::int AS total`;
    }
    const { rows } = await this.pool.query<{ total: number }>(sql, params.values);
    return rows[0]!.total;
  }

  /** A search's matches, up to the cap: a common word is not counted to its last match. */
  private async countMatches(clientId: string, mode: Mode, filter: HistoryFilter): Promise<number> {
    const statement = matchCountStatement(clientId, mode, filter);
    const query = textAlone(filter) ? statement('texts') : await this.cheaper(statement, filter);
    const { rows } = await this.pool.query<{ total: number }>(query);
    return rows[0]!.total;
  }

  /**
   * Counts by status, and of received SMS, for each UTC day of the period
   * that has any: for its whole days, the rollups of deleted records plus
   * the counters of the messages kept; for the parts of a day at its ends,
   * the messages created inside them. Received SMS kept are counted over the
   * whole period by received_at (no counters: far fewer rows than messages).
   * One statement, so a retention run committing meanwhile is seen entirely
   * or not at all.
   */
  async dayCounts(clientId: string, mode: Mode, period: StatsPeriod, deviceId?: string): Promise<DayCounts[]> {
    const params = new Params();
    const client = params.add(clientId);
    const modeParam = params.add(mode);
    const device = params.add(deviceId ?? null);
    const first = params.add(period.days?.first ?? null);
    const last = params.add(period.days?.last ?? null);
    const from = params.add(period.from);
    const until = params.add(period.until);
    const partial = period.partials.map((p) => `(created_at >= ${params.add(p.from)} AND created_at < ${params.add(p.until)})`);
    const ofClient = `client_id = ${client} AND mode = ${modeParam} AND (${device}::text IS NULL OR device_id = ${device}::text)`;
    const { rows } = await this.pool.query<DayCounts>(
      `WITH kept AS (
         SELECT day,
                sum(n) FILTER (WHERE status = 'queued') AS queued,
                sum(n) FILTER (WHERE status = 'sent') AS sent,
                sum(n) FILTER (WHERE status = 'delivered') AS delivered,
                sum(n) FILTER (WHERE status = 'failed') AS failed,
                sum(n) FILTER (WHERE status = 'cancelled') AS cancelled,
                0 AS received
         FROM message_counts
         WHERE ${ofClient} AND day BETWEEN ${first}::date AND ${last}::date
         GROUP BY day
       ), folded AS (
         SELECT day, sum(queued) AS queued, sum(sent) AS sent, sum(delivered) AS delivered, sum(failed) AS failed,
                sum(cancelled) AS cancelled, sum(received) AS received
         FROM daily_rollups
         WHERE ${ofClient} AND day BETWEEN ${first}::date AND ${last}::date
         GROUP BY day
       ), part AS (
         SELECT (created_at AT TIME ZONE 'UTC')::date AS day,
                count(*) FILTER (WHERE status = 'queued') AS queued,
                count(*) FILTER (WHERE status = 'sent') AS sent,
                count(*) FILTER (WHERE status = 'delivered') AS delivered,
                count(*) FILTER (WHERE status = 'failed') AS failed,
                count(*) FILTER (WHERE status = 'cancelled') AS cancelled,
                0 AS received
         FROM messages
         WHERE ${ofClient} AND (${partial.length > 0 ? partial.join(' OR ') : 'false'})
         GROUP BY 1
       ), inbox AS (
         SELECT (received_at AT TIME ZONE 'UTC')::date AS day, 0 AS queued, 0 AS sent, 0 AS delivered, 0 AS failed,
                0 AS cancelled, count(*) AS received
         FROM received_messages
         WHERE ${ofClient} AND received_at >= ${from} AND received_at < ${until}
         GROUP BY 1
       )
       SELECT to_char(day, 'YYYY-MM-DD') AS day, coalesce(sum(queued), 0)::int AS queued, coalesce(sum(sent), 0)::int AS sent,
              coalesce(sum(delivered), 0)::int AS delivered, coalesce(sum(failed), 0)::int AS failed,
              coalesce(sum(cancelled), 0)::int AS cancelled, coalesce(sum(received), 0)::int AS received
       FROM (SELECT * FROM kept UNION ALL SELECT * FROM folded UNION ALL SELECT * FROM part UNION ALL SELECT * FROM inbox) AS days
       GROUP BY day
       HAVING coalesce(sum(queued), 0) + coalesce(sum(sent), 0) + coalesce(sum(delivered), 0) + coalesce(sum(failed), 0)
              + coalesce(sum(cancelled), 0) + coalesce(sum(received), 0) > 0
       ORDER BY day`,
      params.values,
    );
    return rows;
  }

  /**
   * Moves the messages and the received SMS stored more than `days` days ago
   * into the daily rollups, in one transaction: the rollups gain exactly what
   * the tables lose. With `wait: false` it gives up (null) when another
   * replica is already running it.
   */
  async runRetention(days: number, options: { wait: boolean }): Promise<RetentionRun | null> {
    return inTransaction(this.pool, async (client) => {
      // One run per schema at a time; the lock ends with the transaction.
      const lockKey = `hashtext('smsgw:message:retention:' || current_schema())`;
      if (options.wait) {
        await client.query(`SELECT pg_advisory_xact_lock(${lockKey})`);
      } else {
        const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${lockKey}) AS locked`);
        if (!rows[0]!.locked) return null;
      }
      const { rows } = await client.query<{ deleted: number }>(
        `WITH gone AS (
           DELETE FROM messages WHERE created_at < now() - make_interval(days => $1::int)
           RETURNING message_id, client_id, mode, device_id, status, (created_at AT TIME ZONE 'UTC')::date AS day
         ), texts AS (
           DELETE FROM message_texts t USING gone WHERE t.message_id = gone.message_id
         ), folded AS (
           INSERT INTO daily_rollups AS r (client_id, mode, device_id, day, queued, sent, delivered, failed, cancelled)
           SELECT client_id, mode, device_id, day,
                  count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'sent'),
                  count(*) FILTER (WHERE status = 'delivered'), count(*) FILTER (WHERE status = 'failed'),
                  count(*) FILTER (WHERE status = 'cancelled')
           FROM gone
           GROUP BY client_id, mode, device_id, day
           ON CONFLICT (client_id, mode, device_id, day) DO UPDATE SET
             queued = r.queued + excluded.queued, sent = r.sent + excluded.sent,
             delivered = r.delivered + excluded.delivered, failed = r.failed + excluded.failed,
             cancelled = r.cancelled + excluded.cancelled
         )
         SELECT count(*)::int AS deleted FROM gone`,
        [days],
      );
      // Counters emptied by the deletion (the delete trigger has just run).
      await client.query(
        `DELETE FROM message_counts WHERE n = 0 AND day <= ((now() - make_interval(days => $1::int)) AT TIME ZONE 'UTC')::date`,
        [days],
      );
      // Batches whose messages are all gone carry nothing any more, nor their shared text.
      await client.query(
        `WITH gone AS (
           DELETE FROM batches b WHERE b.created_at < now() - make_interval(days => $1::int)
             AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.batch_id = b.batch_id)
           RETURNING batch_id
         )
         DELETE FROM message_texts t USING gone WHERE t.message_id = gone.batch_id AND t.batch`,
        [days],
      );
      return { deleted: rows[0]!.deleted, received: await foldReceived(client, days) };
    });
  }
}
