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

/** The rows the last analyse of the schema's `messages` saw (-1: never analysed). */
async function analysedRows(pool: { query: RunningService['pool']['query'] }): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE oid = 'messages'::regclass`);
  return rows[0]!.n;
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

  it('when the table holds fewer rows than it needs, then it waits; then it analyses it at 100 rows and at each tenfold growth, and stops', async () => {
    const pool = db.pools[0]!;
    // Left to autovacuum once an analyse has seen 1,000 rows (100,000 by default).
    const job = new FirstStatistics(pool, ['messages'], log, { untilRows: 1_000 });
    const insert = (n: number) =>
      insertQueuedRows(
        pool,
        Array.from({ length: n }, () => newMessage({ deviceId: 'device_1' })),
        undefined,
        86_400,
      );
    /** Runs the job once the statistics system counts `rows` live rows (each backend hands its counts over within a second or so of going idle). */
    const runAt = async (rows: number) => {
      await eventually(async () => (await liveRows(pool)) === rows, 10_000, `${rows} rows counted`);
      return job.runOnce();
    };

    await insert(FIRST_STATISTICS_MIN_ROWS - 1);
    expect(await runAt(FIRST_STATISTICS_MIN_ROWS - 1)).toEqual({ analysed: [], done: false });
    expect(await analysedRows(pool)).toBe(-1);

    await insert(1);
    expect(await runAt(FIRST_STATISTICS_MIN_ROWS)).toEqual({ analysed: ['messages'], done: false });
    expect(await analysedRows(pool)).toBe(FIRST_STATISTICS_MIN_ROWS);

    // Not again before the table holds ten times the rows of that analyse.
    await insert(899);
    expect(await runAt(999)).toEqual({ analysed: [], done: false });
    expect(await analysedRows(pool)).toBe(FIRST_STATISTICS_MIN_ROWS);

    await insert(1);
    expect(await runAt(1_000)).toEqual({ analysed: ['messages'], done: true });
    expect(await analysedRows(pool)).toBe(1_000);
    expect(await job.runOnce()).toEqual({ analysed: [], done: true });
  });
});
