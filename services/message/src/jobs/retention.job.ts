import type { Logger } from '@smsgw/platform';
import type { HistoryRepository } from '../data/history.repository';

/** The first run comes soon after start-up, not a full interval later. */
const FIRST_RUN_MAX_DELAY_MS = 10_000;

/**
 * Runs the retention periodically. Every replica has the timer; the advisory
 * lock taken by the repository lets one of them work while the others skip.
 */
export class RetentionJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly history: HistoryRepository,
    private readonly settings: { days: number; intervalMs: number },
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.settings.intervalMs <= 0) return;
    this.schedule(Math.min(FIRST_RUN_MAX_DELAY_MS, this.settings.intervalMs));
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.settings.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async runOnce(): Promise<void> {
    const started = performance.now();
    try {
      const deleted = await this.history.runRetention(this.settings.days, { wait: false });
      const durationMs = Math.round(performance.now() - started);
      if (deleted === null) this.log.debug('retention already running elsewhere; skipped');
      else this.log.info({ deleted, retention_days: this.settings.days, duration_ms: durationMs }, 'retention run');
    } catch (err) {
      this.log.error({ err }, 'retention run failed; next attempt at the next interval');
    }
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
