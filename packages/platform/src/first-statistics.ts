import { quoteIdent, type Pool } from './db';
import type { Logger } from './logger';
import { timerLoop, type TimerLoop } from './timer-loop';

/** Rows enough for statistics that tell one key's rows from the whole table. */
export const FIRST_STATISTICS_MIN_ROWS = 100;
/** A table whose last analyse saw this many rows is left to autovacuum. */
export const FIRST_STATISTICS_UNTIL_ROWS = 100_000;
/** Each analyse after the first comes when the table holds this many times the rows of the last. */
const GROWTH = 10;
const INTERVAL_MS = 1_000;

export interface FirstStatisticsOptions {
  /** Rows of the first analyse (FIRST_STATISTICS_MIN_ROWS). */
  firstRows?: number;
  /** Rows at its last analyse past which a table is left to autovacuum (FIRST_STATISTICS_UNTIL_ROWS). */
  untilRows?: number;
}

/**
 * Analyses each of a service's hot `tables` as it grows on a new installation: once it holds a
 * hundred rows, then at each tenfold growth (a thousand, ten thousand, a hundred thousand), then
 * stops. Until a table's first analyse, Postgres plans on it without statistics, and the plans it
 * makes then read far more than they need, more with every row: on a new installation the message
 * service's insert counted a device's queue by reading the whole queue and its claims read
 * `messages` from end to end; the OTP service's verify found an OTP by reading all of its
 * client's. And a plan made while the table was small stays in each connection's cache until the
 * table's next analyse: the phones' claim, planned once per connection, took 26.6 ms for 50 phones
 * at 20,000 messages with its plan made at 300, against 5.1 ms with one made at 20,000. Autovacuum's
 * first analyse comes at its next visit to the database, up to `autovacuum_naptime` (a minute)
 * later, and was seen not to come within 80 s at 400 messages a second; it never comes where
 * autovacuum is off. On tables analysed before with enough rows (any restart) this costs one query
 * at start-up; it looks once a second until every table is left to autovacuum, then stops. A table
 * restored without its statistics (pg_restore keeps none) is analysed at once.
 */
export class FirstStatistics {
  private readonly loop: TimerLoop;
  private readonly firstRows: number;
  private readonly untilRows: number;
  private done = false;

  constructor(
    private readonly pool: Pool,
    private readonly tables: readonly string[],
    private readonly log: Logger,
    options: FirstStatisticsOptions = {},
  ) {
    this.firstRows = options.firstRows ?? FIRST_STATISTICS_MIN_ROWS;
    this.untilRows = options.untilRows ?? FIRST_STATISTICS_UNTIL_ROWS;
    this.loop = timerLoop({ name: 'first-statistics', intervalMs: INTERVAL_MS, firstDelayMs: 0, tick: () => this.runOnce(), log });
  }

  start(): void {
    this.loop.start();
  }

  /** One look; returns the tables it analysed, and whether every table is now left to autovacuum. */
  async runOnce(): Promise<{ analysed: string[]; done: boolean }> {
    if (this.done) return { analysed: [], done: true };
    const growing = await this.growing();
    const ready = growing.filter((t) => t.rows >= Math.max(this.firstRows, GROWTH * t.analysedRows));
    for (const { table, rows } of ready) {
      await this.pool.query(`ANALYZE ${quoteIdent(table)}`);
      this.log.info({ table, rows }, 'table analysed as it grows');
    }
    this.done = growing.every((t) => ready.includes(t) && t.rows >= this.untilRows);
    // `stop()` waits for the tick under way, this one: not awaited here, it ends the loop once this tick returns.
    if (this.done) void this.loop.stop();
    return { analysed: ready.map((t) => t.table), done: this.done };
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * The tables (of the pool's search path) whose last analyse saw fewer than `untilRows` rows,
   * with the live rows the statistics system counts in each now. `reltuples` is the rows seen by
   * the last ANALYZE or VACUUM, -1 before the first.
   */
  private async growing(): Promise<{ table: string; rows: number; analysedRows: number }[]> {
    const { rows } = await this.pool.query<{ table: string; rows: number; analysedRows: number }>(
      `SELECT t.name AS table, coalesce(s.n_live_tup, 0)::float8 AS rows, c.reltuples::float8 AS "analysedRows"
       FROM unnest($1::text[]) AS t(name)
       JOIN pg_class c ON c.oid = to_regclass(quote_ident(t.name))
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE c.reltuples < $2`,
      [this.tables, this.untilRows],
    );
    return rows;
  }
}
