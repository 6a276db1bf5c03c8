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
    }),
    source,
  );
}
