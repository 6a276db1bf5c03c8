import type { Pool } from '@smsgw/platform';
import { QueueRepository } from '../src/data/queue.repository';
import { explainedPool, scansOf, type PlanNode } from '@smsgw/testing';
import { newMessage, testDatabase } from './support/database';

// An OTP's SMS (priority 1) answers how many messages of its phone go first (up to 100): only the
// priority-1 ones, however many others the queue holds. They are counted by a scan of the queue's
// index in claim order, never by reading the whole table for the few ahead: a read of the table
// took the message service's OTP insert from under a millisecond to 0.2 s once `make bench` had
// queued 300,000 bulk messages on its one phone. (The sends keep an unordered count: see
// queue-insert.ts.)

describe('how many messages go first, on a phone with a long queue', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let explained: Pool;
  let plans: { text: string; plan: PlanNode }[];
  const DEVICE = 'dev_busy';
  const OTHERS = 15_000;

  beforeAll(async () => {
    db = await testDatabase(1);
    await db.pools[0]!.query(
      `INSERT INTO messages (message_id, client_id, mode, device_id, status, to_number, body, priority, parts, encoding)
       SELECT 'msg_' || g, 'client_1700000000000000001', 'live', $1, 'queued', '+33612345678', 'Bonjour', 3, 1, 'GSM-7'
       FROM generate_series(1, $2::int) g`,
      [DEVICE, OTHERS],
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

  /** How the statements that counted what goes first read messages, the insert's own arbiter aside. */
  const aheadScans = () =>
    plans
      .filter((p) => /SELECT 1 FROM messages q/.test(p.text))
      .flatMap((p) => scansOf(p.plan, 'messages'))
      .filter((scan) => scan !== 'messages_pkey');

  it("when an OTP's SMS is queued behind 15,000 normal messages and 2 OTPs, then 2 go first, counted from the queue's index", async () => {
    const queue = new QueueRepository(explained);
    for (let i = 0; i < 2; i++)
      await queue.insertOtp(newMessage({ deviceId: DEVICE, priority: 1 }), Buffer.from('sealed'), new Date(Date.now() + 60_000));
    plans.length = 0;

    const placed = await queue.insertOtp(
      newMessage({ deviceId: DEVICE, priority: 1 }),
      Buffer.from('sealed'),
      new Date(Date.now() + 60_000),
    );

    expect(placed?.ahead).toBe(2);
    const scans = aheadScans();
    expect(scans.length).toBeGreaterThan(0);
    expect(scans).not.toContain('seq');
  });
});
