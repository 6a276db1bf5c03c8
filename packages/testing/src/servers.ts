import { randomBytes } from 'node:crypto';

// The local servers the tests run against; TEST_* overrides them (CI, another port).
export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Random hex, for schema names, NATS prefixes and ids that must not meet another test run's. */
export const randomHex = (bytes = 6) => randomBytes(bytes).toString('hex');
