import { currentTraceparent, newId, type AsyncHandlers, type Nats } from '@smsgw/platform';
import type { scheduler } from '@smsgw/proto';
import type { TimerRepository, TimerRow } from '../data/timer.repository';
import { jobTimerKey, periodStart, type PeriodicJob } from '../domain/periodic-jobs';
import { parseTimerRequest } from '../domain/timers';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : '');

function toProto(t: TimerRow, created: boolean): scheduler.Timer {
  return {
    timerId: t.timer_id,
    key: t.key,
    fireAt: iso(t.fire_at),
    subject: t.subject,
    state: t.state,
    created,
    firedAt: iso(t.fired_at),
  };
}

export function schedulerHandlers(
  repo: TimerRepository,
  nats: Nats,
  jobs: readonly PeriodicJob[],
  settings: { maxSleepMs: number },
): AsyncHandlers<scheduler.SchedulerServiceHandlers> {
  return {
    async CreateTimer(req) {
      const t = parseTimerRequest(req, nats.names.timer(''));
      const { timer, created } = await repo.create({ timerId: newId('tmr'), ...t, traceparent: currentTraceparent() });
      // Replicas asleep past this timer's time must wake up for it; one due
      // later than their longest sleep will be found by their next look.
      if (created && timer.fire_at.getTime() - Date.now() < settings.maxSleepMs) {
        nats.nc.publish(nats.names.schedulerWake, String(timer.fire_at.getTime()));
      }
      return toProto(timer, created);
    },

    async CancelTimer(req) {
      const state = await repo.cancel(req.key);
      return { cancelled: state === 'cancelled', state };
    },

    async ListJobs() {
      const now = Date.now();
      const keyed = jobs.map((job) => {
        const current = periodStart(job.periodMs, now);
        return { job, current, keys: [current - job.periodMs, current, current + job.periodMs].map((s) => jobTimerKey(job.name, s)) };
      });
      const timers = new Map((await repo.findByKeys(keyed.flatMap((k) => k.keys))).map((t) => [t.key, t]));
      return {
        jobs: keyed.map(({ job, current, keys }) => {
          const lastFired = keys
            .map((k) => timers.get(k)?.fired_at)
            .filter((d): d is Date => d instanceof Date)
            .sort((a, b) => b.getTime() - a.getTime())[0];
          const currentTimer = timers.get(keys[1]!);
          const next = currentTimer?.state === 'pending' ? current : current + job.periodMs;
          return {
            name: job.name,
            periodMs: String(job.periodMs),
            subject: nats.names.timer(job.subject),
            lastFiredAt: iso(lastFired),
            nextFireAt: new Date(next).toISOString(),
          };
        }),
      };
    },
  };
}
