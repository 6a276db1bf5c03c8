import type { Logger } from '@smsgw/platform';
import type { HistoryRepository } from '../data/history.repository';
import { Periodic } from './periodic';

/**
 * Runs the retention periodically. Every replica has the timer; the advisory
 * lock taken by the repository lets one of them work while the others skip.
 */
export class RetentionJob {
  private readonly periodic: Periodic;

  constructor(
    private readonly history: HistoryRepository,
    private readonly settings: { days: number; intervalMs: number },
    private readonly log: Logger,
  ) {
    this.periodic = new Periodic(settings.intervalMs, () => this.runOnce());
  }

  start(): void {
    this.periodic.start();
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
    await this.periodic.stop();
  }
}
