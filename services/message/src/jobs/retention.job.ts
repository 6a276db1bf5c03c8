import type { HistoryRepository } from '../data/history.repository';

/**
 * One period of the retention, run when the scheduler fires the
 * `message.retention` job (hourly, declared in the scheduler): one replica
 * receives each fire. The advisory lock taken by the repository still makes
 * a run that overlaps another (a fire redelivered during a long run) skip.
 */
export class RetentionJob {
  constructor(
    private readonly history: HistoryRepository,
    private readonly settings: { days: number },
  ) {}

  async run(): Promise<Record<string, unknown>> {
    const run = await this.history.runRetention(this.settings.days, { wait: false });
    return run === null
      ? { skipped: 'already running elsewhere', retention_days: this.settings.days }
      : { deleted: run.deleted, received_deleted: run.received, retention_days: this.settings.days };
  }
}
