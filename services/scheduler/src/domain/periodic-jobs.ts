/**
 * Every periodic job of the platform, declared here and nowhere else. The
 * scheduler keeps one timer per job and period (key `job:<name>:<period
 * start>`), so each period fires once across all replicas; the owning
 * service consumes the job's subject (under `timers.`) and does the work.
 */
export interface PeriodicJob {
  name: string;
  periodMs: number;
  /** Under the platform's `timers.` subjects: `<owning service>.jobs.<job>`, within the owner's consumer. */
  subject: string;
  /** Who consumes it and what it does. */
  description: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export const PERIODIC_JOBS: readonly PeriodicJob[] = Object.freeze([
  {
    name: 'message.retention',
    periodMs: HOUR_MS,
    subject: 'message.jobs.retention',
    description: 'message service: folds messages past RETENTION_DAYS into daily rollups and deletes them',
  },
  {
    name: 'message.report-timeout',
    periodMs: 5 * 60_000,
    subject: 'message.jobs.report-timeout',
    description: 'message service: ends messages a phone accepted but never reported within ACCEPTED_REPORT_TIMEOUT_MS as failed (EXPIRED)',
  },
  {
    name: 'webhook.cleanup',
    periodMs: DAY_MS,
    subject: 'webhook.jobs.cleanup',
    description: 'webhook service: deletes events, deliveries and attempts older than WEBHOOK_LOG_DAYS (30) from the delivery log',
  },
  {
    name: 'scheduler.cleanup',
    periodMs: DAY_MS,
    subject: 'scheduler.jobs.cleanup',
    description: 'scheduler: deletes fired and cancelled timers older than TIMER_KEEP_DAYS',
  },
]);

/** The declared jobs, with periods overridden by name (configuration, tests). */
export function jobsWithPeriods(overrides: Readonly<Record<string, number>>): PeriodicJob[] {
  const unknown = Object.keys(overrides).filter((name) => !PERIODIC_JOBS.some((j) => j.name === name));
  if (unknown.length > 0) throw new Error(`unknown periodic job(s): ${unknown.join(', ')}`);
  return PERIODIC_JOBS.map((job) => ({ ...job, periodMs: overrides[job.name] ?? job.periodMs }));
}

/** Periods are aligned on the epoch, so every replica computes the same boundaries. */
export function periodStart(periodMs: number, atMs: number): number {
  return Math.floor(atMs / periodMs) * periodMs;
}

export const jobTimerKey = (name: string, startMs: number) => `job:${name}:${new Date(startMs).toISOString()}`;

export interface JobTimer {
  key: string;
  fireAt: Date;
  job: PeriodicJob;
  payload: { job: string; period_start: string; period_ms: number };
}

/**
 * The timers that must exist at `nowMs`: the current period's (fires at once
 * if it never fired: the first start, or a period missed while every replica
 * was down) and the next period's.
 */
export function jobTimersAt(job: PeriodicJob, nowMs: number): JobTimer[] {
  const current = periodStart(job.periodMs, nowMs);
  return [current, current + job.periodMs].map((start) => ({
    key: jobTimerKey(job.name, start),
    fireAt: new Date(start),
    job,
    payload: { job: job.name, period_start: new Date(start).toISOString(), period_ms: job.periodMs },
  }));
}
