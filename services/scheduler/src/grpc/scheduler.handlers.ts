import type { Callers } from '@smsgw/platform';
import type { AsyncHandlers, Nats } from '@smsgw/platform';
import type { scheduler } from '@smsgw/proto';
import type { TimerRepository, TimerRow } from '../data/timer.repository';
import type { PeriodicJob } from '../domain/periodic-jobs';
import { cancelTimer, createTimer, listJobs, type SchedulerService } from '../use-cases/timers.use-case';

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

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const schedulerCallers: Callers<scheduler.SchedulerServiceHandlers> = {
  CreateTimer: ['message', 'webhook'],
  CancelTimer: ['message', 'webhook'],
  ListJobs: ['admin'],
};

/** The gRPC methods of `smsgw.scheduler.v1.SchedulerService`: each reads its request, runs one use case, maps the answer. */
export function schedulerHandlers(
  repo: TimerRepository,
  nats: Nats,
  jobs: readonly PeriodicJob[],
  settings: { maxSleepMs: number },
): AsyncHandlers<scheduler.SchedulerServiceHandlers> {
  const service: SchedulerService = { repo, nats, jobs, maxSleepMs: settings.maxSleepMs };
  return {
    async CreateTimer(req) {
      const { timer, created } = await createTimer(service, req);
      return toProto(timer, created);
    },

    async CancelTimer(req) {
      const state = await cancelTimer(service, req.key);
      return { cancelled: state === 'cancelled', state };
    },

    async ListJobs() {
      return {
        jobs: (await listJobs(service)).map(({ job, lastFiredAt, nextFireAt }) => ({
          name: job.name,
          periodMs: String(job.periodMs),
          subject: nats.names.timer(job.subject),
          lastFiredAt: iso(lastFiredAt),
          nextFireAt: nextFireAt.toISOString(),
        })),
      };
    },
  };
}
