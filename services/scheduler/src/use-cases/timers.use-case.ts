import { currentTraceparent, newId, type Nats } from '@smsgw/platform';
import type { TimerRepository, TimerRow } from '../data/timer.repository';
import { jobTimerKey, periodStart, type PeriodicJob } from '../domain/periodic-jobs';
import { parseTimerRequest, type CancelOutcome } from '../domain/timers';

/** What the scheduler's use cases work with, built once at start-up. */
export interface SchedulerService {
  repo: TimerRepository;
  nats: Nats;
  jobs: readonly PeriodicJob[];
  /** The longest a replica sleeps before looking for due timers again. */
  maxSleepMs: number;
}

/**
 * Creates a timer, once per key (`created` false: the key's timer exists
 * already). A timer due sooner than the replicas' longest sleep wakes them.
 */
export async function createTimer(
  { repo, nats, maxSleepMs }: SchedulerService,
  req: { key: string; fireAt: string; subject: string; payload: Buffer },
): Promise<{ timer: TimerRow; created: boolean }> {
  const t = parseTimerRequest(req, nats.names.timer(''));
  const { timer, created } = await repo.create({ timerId: newId('tmr'), ...t, traceparent: currentTraceparent() });
  // Replicas asleep past this timer's time must wake up for it; one due
  // later than their longest sleep will be found by their next look.
  if (created && timer.fire_at.getTime() - Date.now() < maxSleepMs) {
    nats.nc.publish(nats.names.schedulerWake, String(timer.fire_at.getTime()));
  }
  return { timer, created };
}

export function cancelTimer({ repo }: SchedulerService, key: string): Promise<CancelOutcome> {
  return repo.cancel(key);
}

/** A periodic job as the operator sees it: when it last fired, when it fires next. */
export interface JobStatus {
  job: PeriodicJob;
  lastFiredAt: Date | undefined;
  nextFireAt: Date;
}

/** Every periodic job, read from the timers of its previous, current and next periods. */
export async function listJobs({ repo, jobs }: SchedulerService): Promise<JobStatus[]> {
  const now = Date.now();
  const keyed = jobs.map((job) => {
    const current = periodStart(job.periodMs, now);
    return { job, current, keys: [current - job.periodMs, current, current + job.periodMs].map((s) => jobTimerKey(job.name, s)) };
  });
  const timers = new Map((await repo.findByKeys(keyed.flatMap((k) => k.keys))).map((t) => [t.key, t]));
  return keyed.map(({ job, current, keys }) => {
    const lastFiredAt = keys
      .map((k) => timers.get(k)?.fired_at)
      .filter((d): d is Date => d instanceof Date)
      .sort((a, b) => b.getTime() - a.getTime())[0];
    const currentTimer = timers.get(keys[1]!);
    const next = currentTimer?.state === 'pending' ? current : current + job.periodMs;
    return { job, lastFiredAt, nextFireAt: new Date(next) };
  });
}
