import { createPool } from '@smsgw/platform';
import { createSandbox, startServiceUnderTest } from '../src';

/** A stand-in composition root: makes a table in its schema, publishes nothing, listens nowhere. */
async function fakeStart(config: { schema: string; url: string; fail: boolean }) {
  if (config.fail) throw new Error('start-up failed');
  const pool = createPool({ url: config.url, schema: config.schema, max: 1 });
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${config.schema}"`);
  await pool.query('CREATE TABLE things (id int)');
  return {
    port: 4242,
    async stop() {
      await pool.end();
    },
  };
}

const loadConfig = (env: Record<string, string>) => ({ schema: env.DATABASE_SCHEMA!, url: env.DATABASE_URL!, fail: env.FAIL === 'true' });

const schemaExists = async (schema: string) => {
  const pool = createPool({
    url: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    schema: 'public',
    max: 1,
  });
  try {
    return (await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;
  } finally {
    await pool.end();
  }
};

describe('sandboxes and services under test', () => {
  it('when a service is started, then it gets a fresh schema and prefixes on port 0, and stop() removes its schema, keys and streams', async () => {
    const svc = await startServiceUnderTest({ name: 'fake', loadConfig, start: (c) => fakeStart(c), redis: true, nats: true });
    await svc.sandbox.redis!.set('k', 'v');
    await svc.sandbox.nats!.jsm.streams.add({ name: svc.sandbox.nats!.names.eventsStream, subjects: [svc.sandbox.nats!.names.events] });

    expect(svc.schema).toMatch(/^t_[0-9a-f]{12}$/);
    expect(svc.natsPrefix).toMatch(/^t[0-9a-f]{10}$/);
    expect(svc.redisPrefix).toMatch(/^smsgw:t[0-9a-f]{10}:$/);
    expect(svc.port).toBe(4242);
    expect((await svc.pool.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 0 }]);

    const streamName = svc.sandbox.nats!.names.eventsStream;
    const { redisPrefix } = svc;
    await svc.stop();
    await svc.stop();

    expect(await schemaExists(svc.schema)).toBe(false);
    const after = await createSandbox({ name: 'fake-check', natsPrefix: svc.natsPrefix, redis: true, nats: true });
    try {
      expect(await after.redis!.keys(`${redisPrefix}*`)).toEqual([]);
      await expect(after.nats!.jsm.streams.info(streamName)).rejects.toThrow();
    } finally {
      await after.cleanUp();
    }
  });

  it('when start-up fails, then the sandbox it made is removed and the error reaches the test', async () => {
    let schema = '';
    const failing = startServiceUnderTest({
      name: 'fake',
      loadConfig: (env) => {
        schema = env.DATABASE_SCHEMA!;
        return loadConfig({ ...env, FAIL: 'true' });
      },
      start: (c) => fakeStart(c),
    });

    await expect(failing).rejects.toThrow('start-up failed');
    expect(await schemaExists(schema)).toBe(false);
  });

  it('when replicas start on one sandbox, then they share its schema and stopping them leaves it to its owner', async () => {
    const sandbox = await createSandbox({ name: 'fake' });
    try {
      const first = await startServiceUnderTest({ name: 'fake', loadConfig, start: (c) => fakeStart(c), on: sandbox });
      await first.stop();

      expect(first.schema).toBe(sandbox.schema);
      expect(await schemaExists(sandbox.schema)).toBe(true);
    } finally {
      await sandbox.cleanUp();
    }
    expect(await schemaExists(sandbox.schema)).toBe(false);
  });
});
