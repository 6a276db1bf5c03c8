import { commonConfig, ConfigError, loadConfig, TIMERS_DUPLICATE_WINDOW_MS } from '@smsgw/platform';

export type SchedulerConfig = ReturnType<typeof loadSchedulerConfig>;

/** `name=ms,name=ms`: periods of periodic jobs that differ from their declaration. */
function parsePeriods(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, ms] = item.split('=');
    const value = Number(ms);
    if (!name || !Number.isInteger(value) || value < 1000)
      throw new ConfigError([`PERIODIC_JOB_PERIODS_MS: "${item}" is not name=milliseconds (at least 1000)`]);
    out[name.trim()] = value;
  }
  return out;
}

export function loadSchedulerConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50055),
      grpcTls: commonConfig.grpcTls(env),
      database: commonConfig.database(env, 'scheduler'),
      nats: commonConfig.nats(env),
      timers: {
        /**
         * How long a replica holds the timers it is firing; a replica that dies
         * holding them delays them this long. At most a fifth of the timers
         * stream's duplicate window, so that the repeated fire is dropped.
         */
        leaseMs: env.int('TIMER_LEASE_MS', 30_000, { min: 1000, max: TIMERS_DUPLICATE_WINDOW_MS / 5 }),
        /** Longest sleep without looking for due timers: the safety net for a lost wake-up hint. */
        maxSleepMs: env.int('SCHEDULER_MAX_SLEEP_MS', 30_000, { min: 100, max: 300_000 }),
        /** Timers claimed and published per round. */
        batchSize: env.int('TIMER_BATCH_SIZE', 500, { min: 1, max: 10_000 }),
        /** Wait before a timer whose publish failed is tried again. */
        retryMs: env.int('TIMER_RETRY_MS', 2000, { min: 100 }),
        /** Fired and cancelled timers are kept this long (a key created again within it returns the first timer). */
        keepDays: env.int('TIMER_KEEP_DAYS', 7, { min: 1, max: 3650 }),
      },
      jobs: {
        /** Off: the scheduler keeps no periodic job timers (tests of timers alone). */
        enabled: env.bool('PERIODIC_JOBS', true),
        periodsMs: parsePeriods(env.str('PERIODIC_JOB_PERIODS_MS', '')),
      },
    }),
    source,
  );
}
