import type { Pool } from '@smsgw/platform';
import { MessageRepository } from '../src/data/message.repository';
import { QueueRepository } from '../src/data/queue.repository';
import { explainedPool, scansOf, type PlanNode } from '@smsgw/testing';
import { testDatabase } from './support/database';

// The batched statements of the SMS path join messages to unnested arrays. A generic plan guesses
// 10 rows for any array; these tests plan them so, on a table whose statistics make a read of the
// whole queue look cheap, and check that each row is still found by its key.

describe('the batched statements of the SMS path, planned for any array', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let explained: Pool;
  let plans: { text: string; plan: PlanNode }[];
  const QUEUED = 1_100;

  beforeAll(async () => {
    db = await testDatabase(1);
    await db.pools[0]!.query(
      `INSERT INTO messages (message_id, client_id, mode, device_id, status, to_number, body, priority, parts, encoding)
       SELECT 'msg_' || g, 'client_1', 'live', 'dev_' || (g % 1000), CASE WHEN g <= $1 THEN 'queued' ELSE 'delivered' END,
              '+33612345678', 'Bonjour', 3, 1, 'GSM-7'
       FROM generate_series(1, 15000) g`,
      [QUEUED],
    );
    await db.pools[0]!.query('ANALYZE messages');
    ({ pool: explained, plans } = explainedPool(db.schema));
  });

  beforeEach(() => {
    plans.length = 0;
  });

  afterAll(async () => {
    await explained?.end();
    await db?.drop();
  });

  const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  /** The scans of messages made by the statements that update it. */
  const updateScans = () =>
    plans
      .filter((p) => /UPDATE messages m SET/.test(p.text))
      .map((p) => ({ text: p.text.slice(0, 60), scans: scansOf(p.plan, 'messages') }));

  it('when 20 SMS are acknowledged, then the statement reads each by its key, not the queue', async () => {
    const repo = new MessageRepository(explained);
    const result = await repo.markAcceptedMany(
      ids(1, 20).map((g) => ({ messageId: `msg_${g}`, deviceId: `dev_${g}`, at: new Date(), sim: 0 })),
    );

    expect(result.every((r) => r?.accepted)).toBe(true);
    const scans = updateScans();
    expect(scans).toHaveLength(1);
    expect(new Set(scans[0]!.scans)).toEqual(new Set(['messages_pkey']));
  });

  it('when 20 reports are applied, then the statement reads each SMS by its key', async () => {
    const repo = new MessageRepository(explained);
    const events = await repo.applyReports(
      ids(21, 20).map((g) => ({ messageId: `msg_${g}`, deviceId: `dev_${g}`, status: 'sent' as const, at: new Date(), sim: 0 })),
    );

    expect(events.size).toBe(20);
    const scans = updateScans();
    expect(scans).toHaveLength(1);
    expect(new Set(scans[0]!.scans)).toEqual(new Set(['messages_pkey']));
  });

  it('when 20 phones claim at once, then the messages taken get their lease by key', async () => {
    const queue = new QueueRepository(explained);
    const claimed = await queue.claimMany(
      ids(41, 20).map((g) => ({ deviceId: `dev_${g}`, clientId: 'client_1', sims: [] })),
      30_000,
    );

    expect(claimed.filter(Boolean)).toHaveLength(20);
    const scans = updateScans();
    expect(scans).toHaveLength(1);
    expect(new Set(scans[0]!.scans)).toEqual(new Set(['messages_pkey']));
  });
});
