import type { EnvReader } from './config';

/** Settings every backend service reads the same way. */
export const commonConfig = {
  grpc: (env: EnvReader, defaultPort: number) => ({
    host: env.str('GRPC_HOST', '0.0.0.0'),
    port: env.int('GRPC_PORT', defaultPort, { min: 0, max: 65535 }),
  }),
  database: (env: EnvReader, defaultSchema: string) => ({
    url: env.url('DATABASE_URL', undefined, ['postgres', 'postgresql']),
    schema: env.str('DATABASE_SCHEMA', defaultSchema),
    poolMax: env.int('DATABASE_POOL_MAX', 10, { min: 1, max: 200 }),
  }),
  nats: (env: EnvReader) => ({
    url: env.str('NATS_URL', 'nats://127.0.0.1:4222'),
    /** Subject and stream prefix; empty in production, set per test run. */
    prefix: env.str('NATS_PREFIX', ''),
  }),
  redis: (env: EnvReader) => ({
    url: env.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis', 'rediss']),
    keyPrefix: env.str('REDIS_PREFIX', 'smsgw:'),
  }),
  grpcAddress: (env: EnvReader, name: string, fallback: string) => env.str(name, fallback),
};
