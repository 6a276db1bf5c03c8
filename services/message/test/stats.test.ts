import { AppError } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { thrownBy } from '@smsgw/testing';
import { randomHex } from './support/database';
import { seed, startMessageService, type RunningService, type SeedRow } from './support/service';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
/** An instant `daysAgo` UTC days before today, `hours` after that day's midnight. */
const day = (daysAgo: number, hours = 12) => new Date(today - daysAgo * DAY + hours * HOUR);
const date = (daysAgo: number) => day(daysAgo, 0).toISOString().slice(0, 10);

type Status = NonNullable<SeedRow['status']>;

/** `count` messages of one status, one device, one instant. */
const many = (count: number, row: Omit<SeedRow, 'status'> & { status: Status }): SeedRow[] =>
  Array.from({ length: count }, () => ({ ...row }));

describe('GetStats and RunRetention, through gRPC', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService();
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const stats = (req: Partial<message.GetStatsRequest> & { clientId: string }) => svc.client.getStats({ mode: 'MODE_LIVE', ...req });

  describe('when a client has messages over a few days', () => {
    const client = `client_${Date.now()}1`;
    const d1 = `device_s${randomHex(4)}`;
    const d2 = `device_t${randomHex(4)}`;

    beforeAll(async () => {
      await seed(svc, [
        ...many(3, { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(2, 9) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'failed', createdAt: day(2, 10) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'sent', createdAt: day(2, 11) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'queued', createdAt: day(2, 23.5) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'cancelled', createdAt: day(2, 0.25) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(2, 15) }),
        ...many(2, { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(1, 8) }),
        ...many(2, { clientId: client, deviceId: d1, status: 'cancelled', createdAt: day(1, 8) }),
        ...many(2, { clientId: client, deviceId: d2, status: 'failed', createdAt: day(1, 20) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'cancelled', createdAt: day(5) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(30, 1) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(31, 23) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(40) }),
        // Neither the test mode nor another client counts here.
        ...many(5, { clientId: client, mode: 'MODE_TEST', deviceId: d1, status: 'delivered', createdAt: day(1) }),
        ...many(4, { clientId: `client_${Date.now()}2`, deviceId: d1, status: 'failed', createdAt: day(1) }),
      ]);
    });

    it('then total_sent counts every message not cancelled, pending the queued and sent ones, and by_day each UTC day', async () => {
      const res = await stats({ clientId: client, fromDate: date(2), toDate: date(1) });

      expect(res).toEqual({
        from: `${date(2)}T00:00:00.000Z`,
        to: `${date(1)}T23:59:59.999Z`,
        totalSent: 11,
        delivered: 6,
        failed: 3,
        pending: 2,
        deliveryRate: 54.55,
        received: 0,
        byDay: [
          { date: date(2), sent: 7, delivered: 4, failed: 1, received: 0 },
          { date: date(1), sent: 4, delivered: 2, failed: 2, received: 0 },
        ],
      });
    });

    it('then device_id keeps the figures of that device', async () => {
      const d2Stats = await stats({ clientId: client, fromDate: date(2), toDate: date(1), deviceId: d2 });
      const d1Stats = await stats({ clientId: client, fromDate: date(2), toDate: date(1), deviceId: d1 });

      expect(d2Stats).toMatchObject({ totalSent: 3, delivered: 1, failed: 2, pending: 0, deliveryRate: 33.33 });
      expect(d1Stats).toMatchObject({ totalSent: 8, delivered: 5, failed: 1, pending: 2, deliveryRate: 62.5 });
    });

    it('then without dates the period is the last 30 days up to today, whole UTC days', async () => {
      const res = await stats({ clientId: client });

      expect(res.from).toBe(`${date(30)}T00:00:00.000Z`);
      expect(res.to).toBe(`${date(0)}T23:59:59.999Z`);
      expect(res).toMatchObject({ totalSent: 12, delivered: 7, failed: 3, pending: 2, deliveryRate: 58.33 });
      expect(res.byDay).toEqual([
        { date: date(30), sent: 1, delivered: 1, failed: 0, received: 0 },
        { date: date(5), sent: 0, delivered: 0, failed: 0, received: 0 },
        { date: date(2), sent: 7, delivered: 4, failed: 1, received: 0 },
        { date: date(1), sent: 4, delivered: 2, failed: 2, received: 0 },
      ]);
    });

    it('then a period given to the minute counts exactly the messages created inside it, and period echoes it in UTC', async () => {
      const res = await stats({ clientId: client, fromDate: day(2, 18).toISOString(), toDate: day(1, 1).toISOString() });

      expect(res).toEqual({
        from: day(2, 18).toISOString(),
        to: day(1, 1).toISOString(),
        totalSent: 1,
        delivered: 0,
        failed: 0,
        pending: 1,
        deliveryRate: 0,
        received: 0,
        byDay: [{ date: date(2), sent: 1, delivered: 0, failed: 0, received: 0 }],
      });
    });

    it('then a two-hour window that holds none of the messages of its day counts nothing', async () => {
      const res = await stats({ clientId: client, fromDate: `${date(2)}T14:00:00+02:00`, toDate: `${date(2)}T16:00:00+02:00` });

      expect(res).toEqual({
        from: `${date(2)}T12:00:00.000Z`,
        to: `${date(2)}T14:00:00.000Z`,
        totalSent: 0,
        delivered: 0,
        failed: 0,
        pending: 0,
        deliveryRate: 0,
        received: 0,
        byDay: [],
      });
    });

    it('then whole days in the middle and parts of days at the ends add up, by_day counting only the part inside', async () => {
      const window = { fromDate: day(5, 13).toISOString(), toDate: day(1, 12).toISOString() };

      const all = await stats({ clientId: client, ...window });
      const d1Stats = await stats({ clientId: client, ...window, deviceId: d1 });

      expect(all).toMatchObject({ totalSent: 9, delivered: 6, failed: 1, pending: 2, deliveryRate: 66.67 });
      expect(all.byDay).toEqual([
        { date: date(2), sent: 7, delivered: 4, failed: 1, received: 0 },
        { date: date(1), sent: 2, delivered: 2, failed: 0, received: 0 },
      ]);
      expect(d1Stats).toMatchObject({ totalSent: 8, delivered: 5, failed: 1, pending: 2 });
    });

    it('then to_date alone reaches 30 days back from it', async () => {
      const res = await stats({ clientId: client, toDate: date(10) });

      expect(res).toMatchObject({ from: `${date(40)}T00:00:00.000Z`, to: `${date(10)}T23:59:59.999Z`, totalSent: 3, delivered: 3 });
    });

    it('then the test mode and another client have figures of their own', async () => {
      expect(await stats({ clientId: client, mode: 'MODE_TEST' })).toMatchObject({ totalSent: 5, delivered: 5, deliveryRate: 100 });
      expect(await stats({ clientId: `client_${randomHex(3)}` })).toMatchObject({ totalSent: 0, byDay: [] });
    });

    it('then a period without messages gives zeros and a delivery rate of 0', async () => {
      const res = await stats({ clientId: client, fromDate: '2001-01-01', toDate: '2001-01-31' });

      expect(res).toEqual({
        from: '2001-01-01T00:00:00.000Z',
        to: '2001-01-31T23:59:59.999Z',
        totalSent: 0,
        delivered: 0,
        failed: 0,
        pending: 0,
        deliveryRate: 0,
        received: 0,
        byDay: [],
      });
    });

    it.each([
      ['from_date', { fromDate: 'last week' }],
      ['to_date', { toDate: '2025-02-29' }],
    ])('then an unreadable %s is INVALID_DATE', async (field, req) => {
      const err = await thrownBy(stats({ clientId: client, ...req }), AppError);

      expect(err.code).toBe('INVALID_DATE');
      expect(err.details).toEqual([{ field, code: 'INVALID_DATE' }]);
    });

    it('then from_date after to_date, or after now without to_date, is INVALID_DATE', async () => {
      expect((await thrownBy(stats({ clientId: client, fromDate: date(1), toDate: date(2) }), AppError)).code).toBe('INVALID_DATE');
      expect((await thrownBy(stats({ clientId: client, fromDate: new Date(Date.now() + 2 * DAY).toISOString() }), AppError)).code).toBe(
        'INVALID_DATE',
      );
    });
  });

  describe('when the retention deletes old messages', () => {
    const client = `client_${Date.now()}3`;
    const other = `client_${Date.now()}4`;
    const d1 = `device_r${randomHex(4)}`;
    const d2 = `device_q${randomHex(4)}`;
    const cutoff = () => Date.now() - 90 * DAY;
    let seededOld: string[];
    let seededNew: string[];

    const queries: (Partial<message.GetStatsRequest> & { clientId: string })[] = [
      { clientId: client, fromDate: date(120), toDate: date(0) },
      { clientId: client, fromDate: date(120), toDate: date(0), deviceId: d1 },
      { clientId: client, fromDate: date(120), toDate: date(0), deviceId: d2 },
      { clientId: client, fromDate: day(100, 13).toISOString(), toDate: new Date().toISOString() },
      { clientId: client, fromDate: date(95), toDate: date(85) },
      { clientId: client, fromDate: date(92), toDate: date(89) },
      { clientId: client, fromDate: date(100), toDate: date(100), deviceId: d1 },
      // Parts of days inside the retention are counted from the messages, and stay the same.
      { clientId: client, fromDate: day(10, 6).toISOString(), toDate: day(2, 18).toISOString() },
      { clientId: client, fromDate: day(2, 1).toISOString(), toDate: day(2, 13).toISOString(), deviceId: d2 },
      { clientId: client, fromDate: day(95, 6).toISOString(), toDate: day(10, 6).toISOString() },
      { clientId: client, mode: 'MODE_TEST', fromDate: date(120), toDate: date(0) },
      { clientId: other, fromDate: date(120), toDate: date(0) },
      { clientId: client },
    ];
    const snapshot = () => Promise.all(queries.map((q) => stats(q)));

    beforeAll(async () => {
      const now = Date.now();
      const rows: SeedRow[] = [
        ...many(3, { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(100, 13) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'failed', createdAt: day(100, 8) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'cancelled', createdAt: day(100, 9) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'queued', createdAt: day(100, 22) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'sent', createdAt: day(100, 3) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(100, 4) }),
        ...many(2, { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(95) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'failed', createdAt: day(91, 23.9) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(91, 0.1) }),
        // Either side of the cutoff: usually the same UTC day, split between rollup and table.
        ...many(1, { clientId: client, deviceId: d1, status: 'delivered', createdAt: new Date(now - 90 * DAY - 60_000) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'failed', createdAt: new Date(now - 90 * DAY + 60_000) }),
        ...many(2, { clientId: client, mode: 'MODE_TEST', deviceId: d1, status: 'delivered', createdAt: day(100) }),
        ...many(1, { clientId: other, deviceId: d2, status: 'delivered', createdAt: day(100) }),
        ...many(2, { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(10) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'failed', createdAt: day(10) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'delivered', createdAt: day(2) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'queued', createdAt: day(2) }),
        ...many(1, { clientId: client, deviceId: d2, status: 'cancelled', createdAt: day(85) }),
      ];
      const seeded = await seed(svc, rows);
      seededOld = seeded.filter((r) => r.createdAt.getTime() < cutoff()).map((r) => r.messageId);
      seededNew = seeded.filter((r) => r.createdAt.getTime() >= cutoff()).map((r) => r.messageId);
    });

    const history = async (clientId: string, mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE') =>
      (await svc.client.listMessages({ clientId, mode, page: 1, limit: 100 })).messages.map((m) => m.messageId);

    it('then no statistics figure changes, the old messages leave the history, and a second run deletes nothing', async () => {
      const before = await snapshot();
      const historyBefore = [...(await history(client)), ...(await history(client, 'MODE_TEST')), ...(await history(other))];
      expect(historyBefore.sort()).toEqual([...seededOld, ...seededNew].sort());
      expect(before[0]).toMatchObject({ totalSent: 18, delivered: 11, failed: 4, pending: 3 });

      const run = await svc.client.runRetention({ retentionDays: 90 });

      expect(run.deleted).toBe(seededOld.length);
      expect(seededOld.length).toBe(16);
      expect(await snapshot()).toEqual(before);
      const historyAfter = [...(await history(client)), ...(await history(client, 'MODE_TEST')), ...(await history(other))];
      expect(historyAfter.sort()).toEqual([...seededNew].sort());
      expect(
        (await thrownBy(svc.client.getMessage({ clientId: client, messageId: seededOld[0]!, mode: 'MODE_LIVE' }), AppError)).code,
      ).toBe('MESSAGE_NOT_FOUND');
      // Their texts go with them: a search finds only the messages kept.
      const found = (await svc.client.listMessages({ clientId: client, mode: 'MODE_LIVE', page: 1, limit: 100, search: 'Bonjour' }))
        .messages;
      expect(found.length).toBeGreaterThan(0);
      expect(found.filter((m) => seededOld.includes(m.messageId))).toEqual([]);
      const texts = await svc.pool.query('SELECT message_id FROM message_texts WHERE message_id = ANY($1::text[])', [seededOld]);
      expect(texts.rows).toEqual([]);

      expect(await svc.client.runRetention({ retentionDays: 90 })).toEqual({ deleted: 0 });
      expect(await snapshot()).toEqual(before);
    });

    it('then an end of the period older than the retention counts its whole UTC day, and period says so', async () => {
      const res = await stats({ clientId: client, fromDate: day(100, 13).toISOString(), toDate: day(2, 18).toISOString() });

      expect(res).toMatchObject({ from: `${date(100)}T00:00:00.000Z`, to: day(2, 18).toISOString() });
      expect(res.byDay[0]).toEqual({ date: date(100), sent: 7, delivered: 4, failed: 1, received: 0 });
    });

    it('then messages deleted later onto a day already rolled up are added to it', async () => {
      await seed(svc, [
        ...many(2, { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(100, 1) }),
        ...many(1, { clientId: client, deviceId: d1, status: 'cancelled', createdAt: day(100, 2) }),
      ]);
      const before = await snapshot();

      expect(await svc.client.runRetention({ retentionDays: 90 })).toEqual({ deleted: 3 });

      expect(await snapshot()).toEqual(before);
      const { rows } = await svc.pool.query<{ delivered: number; cancelled: number }>(
        'SELECT delivered, cancelled FROM daily_rollups WHERE client_id = $1 AND mode = $2 AND device_id = $3 AND day = $4',
        [client, 'live', d1, date(100)],
      );
      expect(rows).toEqual([{ delivered: 5, cancelled: 2 }]);
    });

    it('then two runs at once delete each message once and count it once', async () => {
      await seed(svc, many(25, { clientId: client, deviceId: d2, status: 'failed', createdAt: day(97) }));
      const before = await snapshot();

      const runs = await Promise.all([svc.client.runRetention({ retentionDays: 90 }), svc.client.runRetention({ retentionDays: 90 })]);

      const [first, second] = runs;
      expect(first.deleted + second.deleted).toBe(25);
      expect(await snapshot()).toEqual(before);
    });

    it('then retention_days 0 uses the service setting of 90 days', async () => {
      const [kept, gone] = await seed(svc, [
        { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(60) },
        { clientId: client, deviceId: d1, status: 'delivered', createdAt: day(93) },
      ]);
      const before = await snapshot();

      expect(await svc.client.runRetention({ retentionDays: 0 })).toEqual({ deleted: 1 });

      expect(await snapshot()).toEqual(before);
      const left = await history(client);
      expect(left).toContain(kept!.messageId);
      expect(left).not.toContain(gone!.messageId);
    });

    it('then a shorter retention asked for deletes from that age on, and a negative one is refused', async () => {
      const before = await snapshot();

      expect(await svc.client.runRetention({ retentionDays: 50 })).toEqual({ deleted: 3 });

      expect(await snapshot()).toEqual(before);
      expect((await thrownBy(svc.client.runRetention({ retentionDays: -1 }), AppError)).code).toBe('VALIDATION_ERROR');
      expect((await thrownBy(svc.client.runRetention({ retentionDays: 2 ** 31 - 1 }), AppError)).code).toBe('VALIDATION_ERROR');
    });

    it('then after all these inserts, moves and deletions the per-day counters still equal the messages', async () => {
      const { rows } = await svc.pool.query(
        `SELECT coalesce(c.key, m.key) AS key, coalesce(c.n, 0) AS counted, coalesce(m.n, 0) AS actual
         FROM (SELECT concat_ws('|', client_id, mode, day, device_id, status) AS key, sum(n)::int AS n FROM message_counts GROUP BY 1 HAVING sum(n) <> 0) c
         FULL JOIN (SELECT concat_ws('|', client_id, mode, (created_at AT TIME ZONE 'UTC')::date, device_id, status) AS key, count(*)::int AS n
                    FROM messages GROUP BY 1) m ON m.key = c.key
         WHERE coalesce(c.n, 0) <> coalesce(m.n, 0)`,
      );
      expect(rows).toEqual([]);
      expect((await svc.pool.query('SELECT count(*)::int AS n FROM message_counts')).rows[0].n).toBeGreaterThan(0);
    });
  });
});
