import path from 'node:path';
import { createPool, migrate, newId, quoteIdent, type Pool } from '@smsgw/platform';
import type { NewMessage } from '../../src/domain/message-row';
import { DATABASE_URL, eventually, NATS_URL, randomHex, sleep } from '@smsgw/testing';

export { DATABASE_URL, eventually, NATS_URL, randomHex, sleep };
const MIGRATIONS = path.resolve(__dirname, '../../migrations');

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
