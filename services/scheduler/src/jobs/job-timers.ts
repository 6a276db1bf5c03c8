import { newId, type Logger, type NatsNames } from '@smsgw/platform';
import type { TimerRepository } from '../data/timer.repository';
import { jobTimersAt, periodStart, type PeriodicJob } from '../domain/periodic-jobs';

/**
 * Keeps, for every periodic job, the timer of the current period and of the
 * next one. Creation is idempotent by key, so every replica may do it; each
 * replica does it again only when a job enters a new period by its clock.
 */
export class JobTimers {
  private readonly ensuredPeriod = new Map<string, number>();

  constructor(
    private readonly repo: TimerRepository,
    private readonly jobs: readonly PeriodicJob[],
    private readonly names: NatsNames,
    private readonly log: Logger,
  ) {}

  async ensure(nowMs = Date.now()): Promise<void> {
    const stale = this.jobs.filter((job) => this.ensuredPeriod.get(job.name) !== periodStart(job.periodMs, nowMs));
    if (stale.length === 0) return;
    const timers = stale.flatMap((job) => jobTimersAt(job, nowMs));
    const created = await this.repo.ensure(
      timers.map((t) => ({
        timerId: newId('tmr'),
        key: t.key,
        fireAt: t.fireAt,
        subject: this.names.timer(t.job.subject),
        payload: Buffer.from(JSON.stringify(t.payload)),
      })),
    );
    for (const job of stale) this.ensuredPeriod.set(job.name, periodStart(job.periodMs, nowMs));
    if (created > 0) this.log.info({ jobs: stale.map((j) => j.name), created }, 'periodic job timers created');
  }
}
