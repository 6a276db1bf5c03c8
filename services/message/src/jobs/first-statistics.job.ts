import { timerLoop, type Logger, type TimerLoop } from '@smsgw/platform';
import type { StatisticsRepository } from '../data/statistics.repository';

/** Rows enough for statistics that tell one device's queue from the whole queue. */
export const FIRST_STATISTICS_MIN_ROWS = 100;
const INTERVAL_MS = 1_000;

/**
 * Analyses `messages` once, as soon as it holds a hundred rows. Until a
 * table's first analyse, Postgres plans on it without statistics: on a new
 * installation the insert then counted a device's queue by reading the whole
 * queue, and the claims read the table from end to end, each call costing
 * more as the table grew. Autovacuum's first analyse comes only at its next
 * visit to the database, up to `autovacuum_naptime` (a minute) later. On a
 * table analysed before (any restart of a running installation) the job costs
 * one query at start-up; it stops when the table has statistics. A table
 * restored without its statistics (pg_restore keeps none) is analysed at once.
 */
export class FirstStatisticsJob {
  private readonly loop: TimerLoop;
  private done = false;

  constructor(
    private readonly repo: StatisticsRepository,
    private readonly log: Logger,
    private readonly tables: readonly string[] = ['messages'],
  ) {
    this.loop = timerLoop({ name: 'first-statistics', intervalMs: INTERVAL_MS, firstDelayMs: 0, tick: () => this.runOnce(), log });
  }

  start(): void {
    this.loop.start();
  }

  /** One look; returns the tables it analysed, and whether every table now has statistics. */
  async runOnce(): Promise<{ analysed: string[]; done: boolean }> {
    if (this.done) return { analysed: [], done: true };
    const pending = await this.repo.neverAnalysed(this.tables);
    const ready = pending.filter((t) => t.rows >= FIRST_STATISTICS_MIN_ROWS);
    for (const { table, rows } of ready) {
      await this.repo.analyse(table);
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
}
