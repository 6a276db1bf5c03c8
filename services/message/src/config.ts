import { commonConfig, loadConfig } from '@smsgw/platform';

export type MessageConfig = ReturnType<typeof loadMessageConfig>;

export function loadMessageConfig(source: NodeJS.ProcessEnv = process.env) {
  return loadConfig(
    (env) => ({
      grpc: commonConfig.grpc(env, 50052),
      database: commonConfig.database(env, 'message'),
      nats: commonConfig.nats(env),
      /** The hub's pacing, used here only to estimate delivery times. */
      pacing: {
        minMs: env.int('DISPATCH_INTERVAL_MIN_MS', 2000, { min: 0 }),
        maxMs: env.int('DISPATCH_INTERVAL_MAX_MS', 3000, { min: 0 }),
      },
      /** Full history is kept this long; older messages survive only as daily rollups. */
      retention: {
        days: env.int('RETENTION_DAYS', 90, { min: 1, max: 36_500 }),
      },
      /** Timers of scheduled sends; the periodic jobs (retention) come from the scheduler too. */
      scheduler: {
        address: commonConfig.grpcAddress(env, 'SCHEDULER_GRPC_ADDR', '127.0.0.1:50055'),
        deadlineMs: env.int('SCHEDULER_DEADLINE_MS', 2000, { min: 100 }),
      },
    }),
    source,
  );
}
