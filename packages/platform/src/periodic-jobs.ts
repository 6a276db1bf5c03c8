import { metrics } from '@opentelemetry/api';
import type { Logger } from './logger';
import { decodeJsonPayload } from './payload';

const meter = metrics.getMeter('smsgw-jobs');
const runs = meter.createCounter('smsgw.jobs.runs', { description: 'Periodic job runs, by job and outcome (ok, failed)' });
const duration = meter.createHistogram('smsgw.jobs.duration.milliseconds', { description: 'Periodic job run time, by job', unit: 'ms' });
const lastRun = meter.createGauge('smsgw.jobs.last_run.seconds', {
  description: 'End of the last run of each job (Unix seconds), by job and outcome',
  unit: 's',
});

/** The payload of a periodic job's timer, as the scheduler publishes it. */
export interface JobFire {
  job: string;
  period_start: string;
  period_ms: number;
}

export function parseJobFire(bytes: Uint8Array): JobFire | undefined {
  const body = decodeJsonPayload<JobFire>(bytes);
  return body && typeof body.job === 'string' && typeof body.period_start === 'string' ? (body as JobFire) : undefined;
}

/**
 * Runs one period of a periodic job in the service that owns it, and makes
 * its outcome visible: one log line (`periodic job run`, with `job`,
 * `outcome`, `duration_ms` and what `run` returned) and the `smsgw.jobs.*`
 * metrics. Rethrows a failure, for the caller to retry.
 */
export async function runPeriodicJob(fire: JobFire, run: () => Promise<Record<string, unknown>>, log: Logger): Promise<void> {
  const started = performance.now();
  const context = { job: fire.job, period_start: fire.period_start };
  try {
    const result = await run();
    const ms = Math.round(performance.now() - started);
    runs.add(1, { job: fire.job, outcome: 'ok' });
    duration.record(ms, { job: fire.job });
    lastRun.record(Date.now() / 1000, { job: fire.job, outcome: 'ok' });
    log.info({ ...context, outcome: 'ok', duration_ms: ms, ...result }, 'periodic job run');
  } catch (err) {
    runs.add(1, { job: fire.job, outcome: 'failed' });
    lastRun.record(Date.now() / 1000, { job: fire.job, outcome: 'failed' });
    log.error({ ...context, err, outcome: 'failed', duration_ms: Math.round(performance.now() - started) }, 'periodic job run failed');
    throw err;
  }
}

/** A job's work: what it did, for the log line. */
export type JobHandler = () => Promise<Record<string, unknown>>;

/** The part of a JetStream message a job fire needs. */
interface FireMessage {
  data: Uint8Array;
  subject: string;
  info: { deliveryCount: number };
  ack(): void;
  nak(millis?: number): void;
  term(): void;
  working(): void;
}

/**
 * Handles one job fire taken from the timers stream, in any service's
 * consumer: an unknown job is dropped (term); the run keeps the fire from
 * going to another replica while it lasts; a failed run is tried again in
 * 30 s, up to `maxAttempts` deliveries in all, then left to the next period.
 */
export async function handleJobFire(
  msg: FireMessage,
  jobs: Readonly<Record<string, JobHandler>>,
  log: Logger,
  maxAttempts = 5,
): Promise<void> {
  const fire = parseJobFire(msg.data);
  const run = fire && jobs[fire.job];
  if (!fire || !run) {
    log.warn({ subject: msg.subject }, 'unknown periodic job dropped');
    msg.term();
    return;
  }
  const heartbeat = setInterval(() => msg.working(), 20_000);
  try {
    await runPeriodicJob(fire, run, log);
    msg.ack();
  } catch {
    if (msg.info.deliveryCount >= maxAttempts) msg.term();
    else msg.nak(30_000);
  } finally {
    clearInterval(heartbeat);
  }
}
