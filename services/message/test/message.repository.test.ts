import type { Pool } from '@smsgw/platform';
import { MessageRepository } from '../src/data/message.repository';
import type { NewMessage } from '../src/domain/message-row';
import { QueueRepository } from '../src/data/queue.repository';
import { newMessage, randomHex, sleep, testDatabase } from './support/database';

describe('MessageRepository against Postgres', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let repo: MessageRepository;
  let queueRepo: QueueRepository;
  let otherQueueRepo: QueueRepository;
  let pool: Pool;

  beforeAll(async () => {
    db = await testDatabase(2);
    pool = db.pools[0]!;
    repo = new MessageRepository(pool);
    queueRepo = new QueueRepository(pool);
    otherQueueRepo = new QueueRepository(db.pools[1]!);
  });

  afterAll(async () => {
    await db?.drop();
  });

  const device = () => `device_${randomHex()}`;

  async function queue(deviceId: string, overrides: Partial<NewMessage> = {}) {
    const [row] = await queueRepo.insert([newMessage({ deviceId, ...overrides })]);
    return row!;
  }

  async function drain(deviceId: string, leaseMs = 30_000): Promise<string[]> {
    const ids: string[] = [];
    for (let row = await queueRepo.claimNext(deviceId, leaseMs); row; row = await queueRepo.claimNext(deviceId, leaseMs))
      ids.push(row.message_id);
    return ids;
  }

  describe('claimNext', () => {
    it('when low-priority messages are queued and then a very high one, then the very high one is claimed first, then the others oldest first', async () => {
      const deviceId = device();
      const low = [];
      for (let i = 0; i < 3; i++) low.push(await queue(deviceId, { priority: 4, text: `low ${i}` }));
      const normal = await queue(deviceId, { priority: 3 });
      const veryHigh = await queue(deviceId, { priority: 1 });

      expect(await drain(deviceId)).toEqual([veryHigh.message_id, normal.message_id, ...low.map((m) => m.message_id)]);
    });

    it('when a message is claimed, then it comes back with its lease and claim count', async () => {
      const deviceId = device();
      const queued = await queue(deviceId, { to: '+33698765432', text: 'Votre code est 1234', metadata: { order: 42 } });

      const claimed = await queueRepo.claimNext(deviceId, 30_000);

      expect(claimed).toMatchObject({
        message_id: queued.message_id,
        status: 'queued',
        to_number: '+33698765432',
        body: 'Votre code est 1234',
        metadata: { order: 42 },
        claim_count: 1,
      });
    });

    it('when a message is claimed, then it is not claimable during its lease but is again once the lease runs out', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      expect((await queueRepo.claimNext(deviceId, 200))?.message_id).toBe(queued.message_id);
      expect(await queueRepo.claimNext(deviceId, 200)).toBeUndefined();
      expect(await otherQueueRepo.claimNext(deviceId, 200)).toBeUndefined();

      await sleep(300);

      const again = await otherQueueRepo.claimNext(deviceId, 200);
      expect(again?.message_id).toBe(queued.message_id);
      expect(again?.claim_count).toBe(2);
    });

    it('when the phone accepted a claimed message, then it is never offered again, even after the lease', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);
      await queueRepo.claimNext(deviceId, 100);

      await repo.markAccepted(queued.message_id, deviceId, new Date());
      await sleep(150);

      expect(await queueRepo.claimNext(deviceId, 100)).toBeUndefined();
      expect((await repo.findById(queued.message_id))?.status).toBe('queued');
      expect((await repo.queueDepths([deviceId])).get(deviceId)).toBeUndefined();
    });

    it("when the phone's sent report takes the row while its acknowledgement waits for it, then the acknowledgement is answered as accepted", async () => {
      const deviceId = device();
      const queued = await queue(deviceId);
      await queueRepo.claimNext(deviceId, 30_000);
      const report = await db.pools[1]!.connect();
      try {
        await report.query('BEGIN');
        await report.query(
          `UPDATE messages SET status = 'sent', accepted_at = now(), sent_at = now(), lease_until = NULL WHERE message_id = $1`,
          [queued.message_id],
        );
        const ack = repo.markAcceptedMany([{ messageId: queued.message_id, deviceId, at: new Date(), sim: 0 }]);
        await sleep(200);
        await report.query('COMMIT');

        expect(await ack).toEqual([{ status: 'sent', accepted: true }]);
      } finally {
        report.release();
      }
    });

    it('when another device says it accepted a message, then the message is still offered to its own device', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      await repo.markAccepted(queued.message_id, device(), new Date());

      expect((await queueRepo.claimNext(deviceId, 100))?.message_id).toBe(queued.message_id);
    });

    it('when a message is scheduled in the future, then it is not claimed before it is due, and is once due', async () => {
      const deviceId = device();
      const later = await queue(deviceId, { scheduledAt: new Date(Date.now() + 60 * 60_000), priority: 1 });
      const soon = await queue(deviceId, { scheduledAt: new Date(Date.now() + 400), priority: 1 });
      const now = await queue(deviceId, { priority: 5 });

      expect(await drain(deviceId)).toEqual([now.message_id]);
      const [probe] = await queueRepo.insertPlaced([newMessage({ deviceId, priority: 3 })]);
      expect(probe!.ahead).toBe(0);
      expect(await repo.cancel(probe!.row.client_id, probe!.row.message_id, 'live')).toBeDefined();

      await sleep(500);

      expect(await drain(deviceId)).toEqual([soon.message_id]);
      expect((await repo.findById(later.message_id))?.claim_count).toBe(0);
    });

    it('when messages are queued in test mode, then claimNext never returns them', async () => {
      const deviceId = device();
      await queue(deviceId, { mode: 'test', priority: 1 });
      const live = await queue(deviceId, { mode: 'live', priority: 5 });

      expect(await drain(deviceId, 50)).toEqual([live.message_id]);
      await sleep(80);
      expect(await drain(deviceId, 50)).toEqual([live.message_id]);
    });

    it('when messages of another device are queued, then they are not claimed for this one', async () => {
      const mine = device();
      const theirs = device();
      await queue(theirs, { priority: 1 });
      const own = await queue(mine, { priority: 5 });

      expect(await drain(mine)).toEqual([own.message_id]);
    });
  });

  describe('cancel', () => {
    it('when a queued message is cancelled, then it is cancelled once and never claimed', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      const cancelled = await repo.cancel(queued.client_id, queued.message_id, 'live');

      expect(cancelled).toMatchObject({ message_id: queued.message_id, status: 'cancelled' });
      expect(cancelled?.cancelled_at).toBeInstanceOf(Date);
      expect(await repo.cancel(queued.client_id, queued.message_id, 'live')).toBeUndefined();
      expect(await queueRepo.claimNext(deviceId, 100)).toBeUndefined();
    });

    it('when another client or the other mode asks to cancel a message, then it is not cancelled', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      expect(await repo.cancel('client_1700000000000000999', queued.message_id, 'live')).toBeUndefined();
      expect(await repo.cancel(queued.client_id, queued.message_id, 'test')).toBeUndefined();
      expect((await repo.findById(queued.message_id))?.status).toBe('queued');
    });

    it('when a message is claimed, then it can no longer be cancelled', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);
      await queueRepo.claimNext(deviceId, 30_000);

      expect(await repo.cancel(queued.client_id, queued.message_id, 'live')).toBeUndefined();
      expect((await repo.findById(queued.message_id))?.status).toBe('queued');
    });

    it('when cancel and claim race on the same message, then exactly one wins every time and a cancelled message is never claimed later', async () => {
      const leaseMs = 1500;
      const outcomes: { deviceId: string; messageId: string; winner: 'cancel' | 'claim' }[] = [];

      for (let i = 0; i < 30; i++) {
        const deviceId = device();
        const queued = await queue(deviceId);
        const cancel = () => repo.cancel(queued.client_id, queued.message_id, 'live');
        const claim = () => otherQueueRepo.claimNext(deviceId, leaseMs);
        const [cancelled, claimed] =
          i % 2 === 0 ? await Promise.all([cancel(), claim()]) : await Promise.all([claim(), cancel()]).then(([c, x]) => [x, c] as const);

        const cancelWon = cancelled !== undefined;
        const claimWon = claimed !== undefined;
        expect({ iteration: i, cancelWon, claimWon }).toEqual({ iteration: i, cancelWon: !claimWon, claimWon: !cancelWon });
        if (claimWon) expect(claimed.message_id).toBe(queued.message_id);
        const stored = await repo.findById(queued.message_id);
        expect(stored?.status).toBe(cancelWon ? 'cancelled' : 'queued');
        outcomes.push({ deviceId, messageId: queued.message_id, winner: cancelWon ? 'cancel' : 'claim' });
      }

      await sleep(leaseMs + 100);
      for (const outcome of outcomes) {
        const later = await queueRepo.claimNext(outcome.deviceId, 30_000);
        if (outcome.winner === 'cancel') expect(later).toBeUndefined();
        else expect(later?.message_id).toBe(outcome.messageId);
      }
    });
  });

  describe('applyReport', () => {
    const t = (s: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, s));

    it('when sent then delivered are reported, then each moves the message and stamps its time', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      const sent = await repo.applyReport(queued.message_id, deviceId, 'sent', t(1));
      expect(sent).toMatchObject({ status: 'sent', sent_at: t(1), delivered_at: null, accepted_at: t(1) });

      const delivered = await repo.applyReport(queued.message_id, deviceId, 'delivered', t(5));
      expect(delivered).toMatchObject({ status: 'delivered', sent_at: t(1), delivered_at: t(5) });
    });

    it('when the same report is applied twice, then the message moves only once', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      expect(await repo.applyReport(queued.message_id, deviceId, 'sent', t(1))).toMatchObject({ status: 'sent' });
      expect(await repo.applyReport(queued.message_id, deviceId, 'sent', t(2))).toBeUndefined();

      expect(await repo.findById(queued.message_id)).toMatchObject({ status: 'sent', sent_at: t(1) });
    });

    it('when delivered arrives before sent, then both times are set and the late sent changes nothing', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      expect(await repo.applyReport(queued.message_id, deviceId, 'delivered', t(7))).toMatchObject({
        status: 'delivered',
        sent_at: t(7),
        delivered_at: t(7),
      });
      expect(await repo.applyReport(queued.message_id, deviceId, 'sent', t(3))).toBeUndefined();

      expect(await repo.findById(queued.message_id)).toMatchObject({ status: 'delivered', sent_at: t(7), delivered_at: t(7) });
    });

    it('when failed is reported for a queued message, then it fails with its error code and message', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      const failed = await repo.applyReport(queued.message_id, deviceId, 'failed', t(2), {
        code: 'INVALID_NUMBER',
        message: 'Numéro invalide.',
      });

      expect(failed).toMatchObject({
        status: 'failed',
        failed_at: t(2),
        sent_at: null,
        error_code: 'INVALID_NUMBER',
        error_message: 'Numéro invalide.',
      });
      expect(await queueRepo.claimNext(deviceId, 100)).toBeUndefined();
      expect(await repo.applyReport(queued.message_id, deviceId, 'delivered', t(3))).toBeUndefined();
    });

    it('when a report comes from another device, then the message does not move', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);

      expect(await repo.applyReport(queued.message_id, device(), 'sent', t(1))).toBeUndefined();

      expect(await repo.findById(queued.message_id)).toMatchObject({ status: 'queued', sent_at: null });
    });

    it('when a phone reports sending a message that was cancelled meanwhile, then what the phone did wins: it is sent', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);
      await repo.cancel(queued.client_id, queued.message_id, 'live');

      expect(await repo.applyReport(queued.message_id, deviceId, 'sent', t(1))).toMatchObject({ status: 'sent', sent_at: t(1) });
      expect((await repo.findById(queued.message_id))?.status).toBe('sent');
    });

    it('when a claimed message is reported sent, then it is no longer in the queue', async () => {
      const deviceId = device();
      const queued = await queue(deviceId);
      await queueRepo.claimNext(deviceId, 50);

      await repo.applyReport(queued.message_id, deviceId, 'sent', t(1));
      await sleep(80);

      expect(await queueRepo.claimNext(deviceId, 50)).toBeUndefined();
      expect((await repo.queueDepths([deviceId])).get(deviceId)).toBeUndefined();
    });
  });

  describe('insert and queue depth', () => {
    it('when a batch is inserted, then every message shares the batch id and the device queues count them', async () => {
      const first = device();
      const second = device();
      const batchId = `batch_${randomHex()}`;
      const rows = await queueRepo.insert(
        [newMessage({ deviceId: first }), newMessage({ deviceId: second }), newMessage({ deviceId: first })],
        {
          batchId,
          clientId: 'client_1700000000000000001',
          mode: 'live',
        },
      );

      expect(rows).toHaveLength(3);
      expect(rows.map((r) => r.batch_id)).toEqual([batchId, batchId, batchId]);
      expect(rows.map((r) => r.device_id)).toEqual([first, second, first]);
      const depths = await repo.queueDepths([first, second, device()]);
      expect(Object.fromEntries(depths)).toEqual({ [first]: 2, [second]: 1 });
    });

    it('when queues are counted up to a bound, then a longer queue reads as the bound and a shorter one as itself', async () => {
      const [long, short] = [device(), device()];
      await queueRepo.insert([...Array.from({ length: 5 }, () => newMessage({ deviceId: long })), newMessage({ deviceId: short })]);

      expect(Object.fromEntries(await repo.queueDepths([long, short, device()], 3))).toEqual({ [long]: 3, [short]: 1 });
      expect(Object.fromEntries(await repo.queueDepths([long, short]))).toEqual({ [long]: 5, [short]: 1 });
    });
  });

  describe('insertPlaced', () => {
    it('when sends are stored together, then each counts the queued messages ahead of it and the earlier ones of its own statement', async () => {
      const deviceId = device();
      await queue(deviceId, { priority: 3 });
      await queue(deviceId, { priority: 3 });
      await queue(deviceId, { priority: 5 });
      const other = device();

      const placed = await queueRepo.insertPlaced([
        newMessage({ deviceId, priority: 3 }),
        newMessage({ deviceId, priority: 1 }),
        newMessage({ deviceId, priority: 3 }),
        newMessage({ deviceId: other, priority: 3 }),
        newMessage({ deviceId, priority: 3, mode: 'test' }),
        newMessage({ deviceId, priority: 1, scheduledAt: new Date(Date.now() + 3_600_000) }),
      ]);

      // Priority 3: the two older ones and the very high one of the statement go first.
      // The very high one scheduled in an hour will only wait for the very high one due now.
      expect(placed.map((p) => p.ahead)).toEqual([3, 0, 4, 0, 0, 1]);
      expect(placed.map((p) => p.row.status)).toEqual(Array(6).fill('queued'));
      // The phone gets each at the place it was told.
      const claimed = await drain(deviceId);
      expect(claimed).toHaveLength(6);
      for (const p of placed.slice(0, 3)) expect(claimed.indexOf(p.row.message_id)).toBe(p.ahead);
    });

    it('when a device has more than 100 messages queued, then the position comes from its queued total', async () => {
      const deviceId = device();
      await queueRepo.insert(Array.from({ length: 120 }, () => newMessage({ deviceId })));

      const placed = await queueRepo.insertPlaced([
        newMessage({ deviceId }),
        newMessage({ deviceId }),
        newMessage({ deviceId, priority: 1 }),
      ]);

      // 120 older ones and the very high one of the statement.
      expect(placed.map((p) => p.ahead)).toEqual([121, 122, 0]);
    });
  });

  describe('applyReports', () => {
    it('when reports move messages, then their counts move once, and the connection keeps counting by row afterwards', async () => {
      const deviceId = device();
      const [sent, cancelled] = [await queue(deviceId), await queue(deviceId, { priority: 5 })];
      await queueRepo.claimNext(deviceId, 30_000);
      const connection = await pool.connect();
      try {
        const moved = await new MessageRepository(connection as unknown as Pool).applyReports([
          { messageId: sent.message_id, deviceId, status: 'sent', at: new Date(), sim: 0 },
        ]);
        expect([...moved.keys()]).toEqual([sent.message_id]);
        const setting = await connection.query<{ v: string | null }>(`SELECT current_setting('smsgw.counts', true) AS v`);
        expect(setting.rows[0]!.v).not.toBe('by_statement');
        await connection.query(`UPDATE messages SET status = 'cancelled' WHERE message_id = $1`, [cancelled.message_id]);
      } finally {
        connection.release();
      }
      const counted = await pool.query<{ status: string; n: number }>(
        'SELECT status, sum(n)::int AS n FROM message_counts WHERE device_id = $1 GROUP BY 1 HAVING sum(n) <> 0 ORDER BY 1',
        [deviceId],
      );
      expect(counted.rows).toEqual([
        { status: 'cancelled', n: 1 },
        { status: 'sent', n: 1 },
      ]);
    });
  });
});
