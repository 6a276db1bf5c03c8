import { afterEach, beforeEach, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureInfra, type InfraHandle } from '../src/infra/index';
import { freePort } from '../src/ports';

const SHARED_POSTGRES = process.env.SMSGW_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SHARED_REDIS = process.env.SMSGW_REDIS_URL || 'redis://127.0.0.1:6379';
const SHARED_NATS = process.env.SMSGW_NATS_URL || 'nats://127.0.0.1:4222';

let dataDir: string;
let handle: InfraHandle | undefined;
let lines: string[];

beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-infra-'));
  lines = [];
});

afterEach(async () => {
  await handle?.stop();
  handle = undefined;
  await fs.rm(dataDir, { recursive: true, force: true });
});

const log = (line: string) => lines.push(line);

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Whether a TCP connection to 127.0.0.1:port is refused. */
function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

async function redisPing(url: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    return await redis.ping();
  } finally {
    await redis.quit();
  }
}

async function selectOne(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
    return rows[0]!.one;
  } finally {
    await client.end();
  }
}

test('when redis and nats do not answer, then private instances are started, work, and stop() ends them', async () => {
  const redisUrl = `redis://127.0.0.1:${await freePort()}`;
  const natsUrl = `nats://127.0.0.1:${await freePort()}`;

  handle = await ensureInfra({ postgresUrl: SHARED_POSTGRES, redisUrl, natsUrl, dataDir, log });

  expect(handle.started).toEqual(['redis', 'nats']);
  expect(handle.postgresUrl).toBe(SHARED_POSTGRES);
  expect(handle.redisUrl).not.toBe(redisUrl);
  expect(handle.natsUrl).not.toBe(natsUrl);
  expect(lines).toContainEqual(
    expect.stringMatching(/^redis: not reachable at redis:\/\/127\.0\.0\.1:\d+ .*starting a private redis-server on 127\.0\.0\.1:\d+$/),
  );
  expect(lines).toContainEqual(expect.stringMatching(/^postgres: using postgres:\/\/.* \(reachable\)$/));

  expect(await redisPing(handle.redisUrl)).toBe('PONG');

  const nc = await connect({ servers: handle.natsUrl });
  try {
    const sub = nc.subscribe('launcher.check', { max: 1 });
    nc.publish('launcher.check', 'round trip');
    for await (const msg of sub) expect(msg.string()).toBe('round trip');

    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'LAUNCHER_CHECK', subjects: ['launcher.stream.>'] });
    const ack = await jetstream(nc).publish('launcher.stream.one', 'kept');
    expect(ack).toMatchObject({ stream: 'LAUNCHER_CHECK', seq: 1 });
  } finally {
    await nc.close();
  }
  await expect(fs.stat(path.join(dataDir, 'nats', 'jetstream'))).resolves.toBeDefined();

  await handle.stop();

  expect(await refuses(portOf(handle.redisUrl))).toBe(true);
  expect(await refuses(portOf(handle.natsUrl))).toBe(true);
});

test('when the shared services answer, then nothing is started and stop() leaves them running', async () => {
  handle = await ensureInfra({ dataDir, log });

  expect(handle.started).toEqual([]);
  expect(handle).toMatchObject({ postgresUrl: SHARED_POSTGRES, redisUrl: SHARED_REDIS, natsUrl: SHARED_NATS });
  expect(lines).toHaveLength(3);

  await handle.stop();

  expect(await redisPing(SHARED_REDIS)).toBe('PONG');
  expect(await selectOne(SHARED_POSTGRES)).toBe(1);
});

test('when nats answers without JetStream, then a private nats-server with JetStream is started instead', async () => {
  const port = await freePort();
  const coreOnly = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const coreOnlyExit = new Promise((resolve) => coreOnly.once('exit', resolve));
  try {
    await waitFor(async () => (await connect({ servers: `nats://127.0.0.1:${port}` })).close());

    handle = await ensureInfra({ postgresUrl: SHARED_POSTGRES, redisUrl: SHARED_REDIS, natsUrl: `nats://127.0.0.1:${port}`, dataDir, log });

    expect(handle.started).toEqual(['nats']);
    expect(portOf(handle.natsUrl)).not.toBe(port);
    expect(lines).toContainEqual(expect.stringMatching(/^nats: not usable at .*JetStream is not enabled.*starting a private nats-server/));
    const nc = await connect({ servers: handle.natsUrl });
    await expect(jetstreamManager(nc)).resolves.toBeDefined();
    await nc.close();
  } finally {
    coreOnly.kill('SIGTERM');
    await coreOnlyExit;
  }
});

test('when postgres does not answer, then a private postgres is initialised, answers SELECT 1, and stop() ends it', async () => {
  const postgresUrl = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;

  handle = await ensureInfra({ postgresUrl, redisUrl: SHARED_REDIS, natsUrl: SHARED_NATS, dataDir, log });

  expect(handle.started).toEqual(['postgres']);
  expect(handle.postgresUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
  expect(await selectOne(handle.postgresUrl)).toBe(1);
  await expect(fs.stat(path.join(dataDir, 'postgres', 'PG_VERSION'))).resolves.toBeDefined();
  expect(await fs.readFile(path.join(dataDir, 'postgres.log'), 'utf8')).toMatch(/ready to accept connections/);

  await handle.stop();

  expect(await refuses(portOf(handle.postgresUrl))).toBe(true);
}, 60_000);

test('when the postgres data directory holds stray files, then ensureInfra fails with the end of initdb output', async () => {
  await fs.mkdir(path.join(dataDir, 'postgres'));
  await fs.writeFile(path.join(dataDir, 'postgres', 'stray.txt'), 'not a cluster');
  const postgresUrl = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;

  await expect(ensureInfra({ postgresUrl, redisUrl: SHARED_REDIS, natsUrl: SHARED_NATS, dataDir, log })).rejects.toThrow(
    /initdb exited with code 1.*Last lines of .*postgres\.log:\n.*exists but is not empty/s,
  );
}, 30_000);

async function waitFor(attempt: () => Promise<unknown>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await attempt();
      return;
    } catch (err) {
      if (i > 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
