import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createPool, migrate, newId, quoteIdent, type Pool } from '@smsgw/platform';
import type { NewMessage } from '../../src/data/message.repository';

export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const MIGRATIONS = path.resolve(__dirname, '../../migrations');

export const randomHex = (bytes = 6) => randomBytes(bytes).toString('hex');

/** A schema of its own for one test file, with the service's migrations applied. */
export async function testDatabase(poolCount = 1): Promise<{ schema: string; pools: Pool[]; drop(): Promise<void> }> {
  const schema = `t_${randomHex()}`;
  const pools = Array.from({ length: poolCount }, () => createPool({ url: DATABASE_URL, schema, max: 4 }));
  await migrate(pools[0]!, { schema, dir: MIGRATIONS });
  return {
    schema,
    pools,
    async drop() {
      await pools[0]!.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await Promise.all(pools.map((p) => p.end()));
    },
  };
}

/** A queued message as the Send handler would build it. */
export function newMessage(overrides: Partial<NewMessage> & { deviceId: string }): NewMessage {
  return {
    messageId: newId('msg'),
    clientId: 'client_1700000000000000001',
    mode: 'live',
    batchId: null,
    to: '+33612345678',
    text: 'Bonjour',
    priority: 3,
    metadata: null,
    webhookUrl: null,
    parts: 1,
    encoding: 'GSM-7',
    scheduledAt: null,
    ...overrides,
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns something truthy, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
