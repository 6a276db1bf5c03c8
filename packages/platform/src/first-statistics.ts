import { quoteIdent, type Pool } from './db';
import type { Logger } from './logger';
import { timerLoop, type TimerLoop } from './timer-loop';

/** Rows enough for statistics that tell one key's rows from the whole table. */
export const FIRST_STATISTICS_MIN_ROWS = 100;
const INTERVAL_MS = 1_000;

/**
 * Analyses each of a service's hot `tables` once, as soon as it holds a
 * hundred rows. Until a table's first analyse, Postgres plans on it without
 * statistics, and the plans it makes then read far more than they need, more
 * with every row: on a new installation the message service's insert counted
 * a device's queue by reading the whole queue and its claims read `messages`
 * from end to end; the OTP service's verify found an OTP by reading all of
 * its client's. Autovacuum's first analyse comes at its next visit to the
 * database, up to `autovacuum_naptime` (a minute) later, and never where
 * autovacuum is off. On tables analysed before (any restart) this costs one
 * query at start-up; it looks once a second until every table has
 * statistics, then stops. A table restored without its statistics
 * (pg_restore keeps none) is analysed at once.
 */
export class FirstStatistics {
  private readonly loop: TimerLoop;
  private done = false;

  constructor(
    private readonly pool: Pool,
    private readonly tables: readonly string[],
    private readonly log: Logger,
  ) {
    this.loop = timerLoop({ name: 'first-statistics', intervalMs: INTERVAL_MS, firstDelayMs: 0, tick: () => this.runOnce(), log });
  }

  start(): void {
    this.loop.start();
  }

  /** One look; returns the tables it analysed, and whether every table now has statistics. */
  async runOnce(): Promise<{ analysed: string[]; done: boolean }> {
    if (this.done) return { analysed: [], done: true };
    const pending = await this.neverAnalysed();
    const ready = pending.filter((t) => t.rows >= FIRST_STATISTICS_MIN_ROWS);
    for (const { table, rows } of ready) {
      await this.pool.query(`ANALYZE ${quoteIdent(table)}`);
      this.log.info({ table, rows }, 'table analysed for the first time');
    }
    this.done = ready.length === pending.length;
    // `stop()` waits for the tick under way, this one: not awaited here, it ends the loop once this tick returns.
    if (this.done) void this.loop.stop();
    return { analysed: ready.map((t) => t.table), done: this.done };
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * The tables (of the pool's search path) never analysed, with the live
   * rows the statistics system counts in each now. `reltuples` is -1 until a
   * table's first ANALYZE or VACUUM.
   */
  private async neverAnalysed(): Promise<{ table: string; rows: number }[]> {
    const { rows } = await this.pool.query<{ table: string; rows: number }>(
      `SELECT t.name AS table, coalesce(s.n_live_tup, 0)::int AS rows
       FROM unnest($1::text[]) AS t(name)
       JOIN pg_class c ON c.oid = to_regclass(quote_ident(t.name))
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE c.reltuples < 0`,
      [this.tables],
    );
    return rows;
  }
}
