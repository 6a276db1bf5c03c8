import { createLogger, FIRST_STATISTICS_MIN_ROWS, FirstStatistics } from '@smsgw/platform';
import { insertQueuedRows } from '../src/data/queue-insert';
import { explainedPool, scansOf } from '@smsgw/testing';
import { eventually, newMessage, randomHex, testDatabase } from './support/database';
import { startMessageService, type RunningService } from './support/service';

// Until its first ANALYZE, Postgres plans statements on `messages` without statistics: the insert
// then counted a device's queue by reading the whole queue, dearer with every message queued.

const log = createLogger('first-statistics-test', 'silent');

/** Whether Postgres has statistics of the schema's `messages` (reltuples is -1 until the first analyse). */
async function analysed(pool: { query: RunningService['pool']['query'] }): Promise<boolean> {
  const { rows } = await pool.query<{ analysed: boolean }>(
    `SELECT reltuples >= 0 AS analysed FROM pg_class WHERE oid = 'messages'::regclass`,
  );
  return rows[0]!.analysed;
}

async function liveRows(pool: { query: RunningService['pool']['query'] }): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT n_live_tup::int AS n FROM pg_stat_user_tables WHERE relid = 'messages'::regclass`,
  );
  return rows[0]!.n;
}

/** Autovacuum visits the database once a minute: that visit must not be what analyses the table here. */
async function withoutAutovacuum(pool: { query: RunningService['pool']['query'] }): Promise<void> {
  await pool.query('ALTER TABLE messages SET (autovacuum_enabled = false)');
}

describe('the first statistics of a new installation', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
    await withoutAutovacuum(svc.pool);
  });

  afterAll(async () => {
    await svc?.stop();
  });

  it('when a new installation has queued its first messages, then the service analyses the table and a send counts its device queue by its index', async () => {
    const devices = Array.from({ length: 50 }, () => `device_${randomHex(5)}`);
    const send = (i: number) => ({
      request: {
        clientId: 'client_91',
        mode: 'MODE_LIVE' as const,
        deviceId: devices[i % devices.length]!,
        message: { to: '+33612345678', text: `n° ${i}` },
        priority: 3,
      },
      traceparent: `00-${randomHex(16)}-${randomHex(8)}-01`,
    });
    expect(await analysed(svc.pool)).toBe(false);

    await svc.client.sendMany({ items: Array.from({ length: FIRST_STATISTICS_MIN_ROWS + 50 }, (_, i) => send(i)) });

    await eventually(() => analysed(svc.pool), 10_000, 'messages analysed');
    // The queue grows on: 3,000 messages more, spread over 100 phones.
    for (let batch = 0; batch < 6; batch++) {
      const more = Array.from({ length: 500 }, (_, i) => newMessage({ clientId: 'client_91', deviceId: `device_more_${i % 100}` }));
      await insertQueuedRows(svc.pool, more, undefined, 86_400);
    }
    const { pool, plans } = explainedPool(svc.schema);
    try {
      const [placed] = await insertQueuedRows(pool, [newMessage({ clientId: 'client_91', deviceId: devices[0]! })], undefined, 86_400);
      expect(placed!.ahead).toBe(3);
      const insert = plans.find((p) => p.text.includes('INSERT INTO messages'));
      expect(new Set(scansOf(insert!.plan, 'messages'))).toEqual(new Set(['messages_queue']));
    } finally {
      await pool.end();
    }
  });
});

describe('the first statistics job', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;

  beforeAll(async () => {
    db = await testDatabase(1);
    await withoutAutovacuum(db.pools[0]!);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('when the table holds fewer rows than it needs, then it waits; when it holds them, then it analyses the table once and stops', async () => {
    const pool = db.pools[0]!;
    const job = new FirstStatistics(pool, ['messages'], log);
    await insertQueuedRows(
      pool,
      Array.from({ length: FIRST_STATISTICS_MIN_ROWS - 1 }, () => newMessage({ deviceId: 'device_1' })),
      undefined,
      86_400,
    );
    // Each backend hands its counts to the statistics system within a second or so of going idle.
    await eventually(async () => (await liveRows(pool)) === FIRST_STATISTICS_MIN_ROWS - 1, 10_000, 'the rows counted');

    expect(await job.runOnce()).toEqual({ analysed: [], done: false });
    expect(await analysed(pool)).toBe(false);

    await insertQueuedRows(pool, [newMessage({ deviceId: 'device_1' })], undefined, 86_400);
    const first = await eventually(
      async () => {
        const run = await job.runOnce();
        return run.done && run;
      },
      10_000,
      'the job to analyse the table',
    );
    expect(first).toEqual({ analysed: ['messages'], done: true });
    expect(await analysed(pool)).toBe(true);
    expect(await job.runOnce()).toEqual({ analysed: [], done: true });
  });
});
