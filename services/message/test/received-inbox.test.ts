import { AppError, connectNats, createLogger, newId, type AgentReceived, type Nats } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { thrownBy } from '@smsgw/testing';
import { eventually, NATS_URL, randomHex } from './support/database';
import { startMessageService, type RunningService } from './support/service';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const day = (daysAgo: number, hours = 12) => new Date(today - daysAgo * DAY + hours * HOUR);
const date = (daysAgo: number) => day(daysAgo, 0).toISOString().slice(0, 10);

interface SeedReceived {
  clientId: string;
  mode?: 'live' | 'test';
  deviceId: string;
  from?: string;
  text?: string;
  sim?: number | null;
  receivedAt: Date;
  /** When it was stored: receivedAt unless given. */
  createdAt?: Date;
}

describe('the inbox (ListReceived, GetReceived), its statistics and retention, through gRPC', () => {
  let svc: RunningService;
  let nats: Nats;

  beforeAll(async () => {
    svc = await startMessageService();
    nats = await connectNats({ url: NATS_URL, prefix: svc.natsPrefix, name: 'inbox-test', log: createLogger('inbox-test', 'silent') });
  });

  afterAll(async () => {
    await nats?.nc.drain();
    await svc?.stop();
  });

  /** Records as the consumer would have stored them, at any time in the past. */
  async function seed(rows: SeedReceived[]): Promise<string[]> {
    const ids = rows.map(() => `rcv_${newId('msg').slice(4)}`);
    await svc.pool.query(
      `INSERT INTO received_messages (id, client_id, mode, device_id, received_id, sim, from_number, body, received_at, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::text[], $8::text[],
                            $9::timestamptz[], $10::timestamptz[])`,
      [
        ids,
        rows.map((r) => r.clientId),
        rows.map((r) => r.mode ?? 'live'),
        rows.map((r) => r.deviceId),
        rows.map(() => randomHex(8)),
        rows.map((r) => (r.sim === undefined ? 1 : r.sim)),
        rows.map((r) => r.from ?? '+33611223344'),
        rows.map((r) => r.text ?? 'Bonjour'),
        rows.map((r) => r.receivedAt),
        rows.map((r) => r.createdAt ?? r.receivedAt),
      ],
    );
    return ids;
  }

  const list = (req: Partial<message.ListReceivedRequest> & { clientId: string }) =>
    svc.client.listReceived({ mode: 'MODE_LIVE', page: 1, limit: 50, ...req });

  it('when a phone receives an SMS, then the running service stores it and the client reads it in its inbox and by id', async () => {
    const body: AgentReceived = {
      received_id: randomHex(8),
      device_id: `device_${randomHex()}`,
      client_id: `client_${randomHex()}`,
      mode: 'live',
      from: 'BANQUE',
      text: 'Votre code est 123456',
      received_at: new Date(Date.now() - 60_000).toISOString(),
    };
    await nats.js.publish(nats.names.agentReceived(body.device_id), JSON.stringify(body), {
      msgID: `${body.device_id}:${body.received_id}`,
    });

    const page = await eventually(
      async () => {
        const res = await list({ clientId: body.client_id });
        return res.messages.length > 0 ? res : undefined;
      },
      5000,
      'the SMS in the inbox',
    );

    const record = {
      id: expect.stringMatching(/^rcv_/),
      clientId: body.client_id,
      mode: 'MODE_LIVE',
      deviceId: body.device_id,
      sim: 0,
      from: 'BANQUE',
      text: 'Votre code est 123456',
      receivedAt: body.received_at,
      createdAt: expect.any(String),
    };
    expect(page).toEqual({ messages: [record], page: 1, perPage: 50, totalPages: 1, totalItems: 1 });
    const id = page.messages[0]!.id;
    expect(await svc.client.getReceived({ clientId: body.client_id, mode: 'MODE_LIVE', id })).toEqual({ ...record, id });
  });

  describe('when a client has received SMS on two phones, in both modes, next to another client', () => {
    const client = `client_${randomHex()}`;
    const other = `client_${randomHex()}`;
    const d1 = `device_${randomHex()}`;
    const d2 = `device_${randomHex()}`;
    let ids: string[];

    beforeAll(async () => {
      ids = await seed([
        { clientId: client, deviceId: d1, from: '+33600000011', text: 'Oui pour demain', receivedAt: day(3, 9) },
        { clientId: client, deviceId: d1, from: '+33600000012', text: 'STOP', receivedAt: day(2, 9) },
        { clientId: client, deviceId: d2, from: '+33600000011', text: 'Merci 100% ok', receivedAt: day(2, 10), sim: null },
        { clientId: client, deviceId: d2, from: '+33600000013', text: 'oui, MERCI', receivedAt: day(1, 9), sim: 2 },
        { clientId: client, deviceId: d1, from: '+33600000011', text: 'à demain', receivedAt: day(0, 0.5) },
        { clientId: client, mode: 'test', deviceId: d1, from: '+33600000011', text: 'test mode', receivedAt: day(1) },
        { clientId: other, deviceId: d1, from: '+33600000011', text: 'another client', receivedAt: day(1) },
      ]);
    });

    const idsOf = (res: message.ListReceivedResponse__Output) => res.messages.map((m) => m.id);

    it('then the inbox lists its records of the mode newest first, and only them', async () => {
      const res = await list({ clientId: client });
      expect(idsOf(res)).toEqual([ids[4], ids[3], ids[2], ids[1], ids[0]]);
      expect(res).toMatchObject({ page: 1, perPage: 50, totalPages: 1, totalItems: 5 });
      expect(res.messages[2]).toMatchObject({ sim: 0, deviceId: d2, from: '+33600000011', text: 'Merci 100% ok' });
      expect(res.messages[1]).toMatchObject({ sim: 2, receivedAt: day(1, 9).toISOString() });
      expect(idsOf(await list({ clientId: client, mode: 'MODE_TEST' }))).toEqual([ids[5]]);
      expect(idsOf(await list({ clientId: other }))).toEqual([ids[6]]);
      expect(idsOf(await list({ clientId: `client_${randomHex()}` }))).toEqual([]);
    });

    it('then from, device_id, the dates (of arrival) and search filter, together too', async () => {
      expect(idsOf(await list({ clientId: client, from: '+33600000011' }))).toEqual([ids[4], ids[2], ids[0]]);
      expect(idsOf(await list({ clientId: client, deviceId: d2 }))).toEqual([ids[3], ids[2]]);
      expect(idsOf(await list({ clientId: client, fromDate: date(2), toDate: date(1) }))).toEqual([ids[3], ids[2], ids[1]]);
      expect(idsOf(await list({ clientId: client, fromDate: day(2, 9.5).toISOString() }))).toEqual([ids[4], ids[3], ids[2]]);
      expect(idsOf(await list({ clientId: client, search: 'merci' }))).toEqual([ids[3], ids[2]]);
      expect(idsOf(await list({ clientId: client, search: '100%' }))).toEqual([ids[2]]);
      expect(idsOf(await list({ clientId: client, search: '00%' }))).toEqual([ids[2]]);
      expect(idsOf(await list({ clientId: client, search: '_ok' }))).toEqual([]);
      expect(idsOf(await list({ clientId: client, from: '+33600000011', deviceId: d1, toDate: date(1) }))).toEqual([ids[0]]);
    });

    it('then pages of `limit` follow each other with the history shapes, and a page past the end is empty', async () => {
      const p1 = await list({ clientId: client, limit: 2 });
      const p2 = await list({ clientId: client, limit: 2, page: 2 });
      const p3 = await list({ clientId: client, limit: 2, page: 3 });
      const p4 = await list({ clientId: client, limit: 2, page: 4 });

      expect([p1, p2, p3, p4].map(idsOf)).toEqual([[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]], []]);
      for (const p of [p1, p2, p3, p4]) expect(p).toMatchObject({ perPage: 2, totalPages: 3, totalItems: 5 });
      expect(p3.page).toBe(3);
    });

    it('then bad pages, dates and searches are refused as the history refuses them', async () => {
      expect((await thrownBy(list({ clientId: client, page: 0 }), AppError)).code).toBe('INVALID_PAGINATION');
      expect((await thrownBy(list({ clientId: client, limit: 101 }), AppError)).code).toBe('INVALID_PAGINATION');
      expect((await thrownBy(list({ clientId: client, fromDate: 'yesterday' }), AppError)).code).toBe('INVALID_DATE');
      expect((await thrownBy(list({ clientId: client, fromDate: date(1), toDate: date(2) }), AppError)).code).toBe('INVALID_DATE');
      const short = await thrownBy(list({ clientId: client, search: 'ok' }), AppError);
      expect(short.code).toBe('VALIDATION_ERROR');
      expect(short.details).toEqual([{ field: 'search', code: 'SEARCH_TOO_SHORT' }]);
    });

    it('then GetReceived finds its record, and RECEIVED_NOT_FOUND for another client, the other mode, an unknown or a non-rcv_ id', async () => {
      expect(await svc.client.getReceived({ clientId: client, mode: 'MODE_LIVE', id: ids[3]! })).toMatchObject({ id: ids[3], sim: 2 });
      const misses = [
        { clientId: other, mode: 'MODE_LIVE' as const, id: ids[3]! },
        { clientId: client, mode: 'MODE_TEST' as const, id: ids[3]! },
        { clientId: client, mode: 'MODE_LIVE' as const, id: ids[5]! },
        { clientId: client, mode: 'MODE_LIVE' as const, id: `rcv_${newId('msg').slice(4)}` },
        { clientId: client, mode: 'MODE_LIVE' as const, id: `msg_${ids[3]!.slice(4)}` },
        { clientId: client, mode: 'MODE_LIVE' as const, id: '' },
      ];
      for (const req of misses) {
        const err = await thrownBy(svc.client.getReceived(req), AppError);
        expect(err.code).toBe('RECEIVED_NOT_FOUND');
      }
    });

    it('then GetStats counts them as received, in total and per UTC day of arrival, by device and mode', async () => {
      const res = await svc.client.getStats({ clientId: client, mode: 'MODE_LIVE', fromDate: date(3), toDate: date(0) });
      expect(res).toMatchObject({ totalSent: 0, received: 5 });
      expect(res.byDay).toEqual([
        { date: date(3), sent: 0, delivered: 0, failed: 0, received: 1 },
        { date: date(2), sent: 0, delivered: 0, failed: 0, received: 2 },
        { date: date(1), sent: 0, delivered: 0, failed: 0, received: 1 },
        { date: date(0), sent: 0, delivered: 0, failed: 0, received: 1 },
      ]);
      const window = await svc.client.getStats({
        clientId: client,
        mode: 'MODE_LIVE',
        fromDate: day(2, 9.5).toISOString(),
        toDate: date(1),
      });
      expect(window).toMatchObject({
        received: 2,
        byDay: [expect.objectContaining({ received: 1 }), expect.objectContaining({ received: 1 })],
      });
      expect(await svc.client.getStats({ clientId: client, mode: 'MODE_LIVE', deviceId: d2 })).toMatchObject({ received: 2 });
      expect(await svc.client.getStats({ clientId: client, mode: 'MODE_TEST' })).toMatchObject({ received: 1 });
    });
  });

  describe('when received SMS are older than the retention', () => {
    const client = `client_${randomHex()}`;
    const d1 = `device_${randomHex()}`;
    const queries = [
      { fromDate: date(120), toDate: date(0) },
      { fromDate: date(100), toDate: date(100) },
      { fromDate: day(100, 13).toISOString(), toDate: new Date().toISOString() },
      { fromDate: date(95), toDate: date(85), deviceId: d1 },
      { fromDate: day(95, 6).toISOString(), toDate: day(10, 6).toISOString() },
    ].map((q) => ({ clientId: client, mode: 'MODE_LIVE' as const, ...q }));
    const snapshot = () => Promise.all(queries.map((q) => svc.client.getStats(q)));

    it('then the retention deletes them, folds them into the rollups, and no figure changes', async () => {
      const [oldA, oldB, lateArrival, recent] = await seed([
        { clientId: client, deviceId: d1, receivedAt: day(100, 8) },
        { clientId: client, deviceId: d1, receivedAt: day(100, 20) },
        // Received long ago but stored only lately (the phone was offline): kept, the retention counting from storing.
        { clientId: client, deviceId: d1, receivedAt: day(95), createdAt: day(1) },
        { clientId: client, deviceId: d1, receivedAt: day(10) },
      ]);
      const before = await snapshot();
      expect(before[0]).toMatchObject({ received: 4 });
      expect(before[1]!.byDay).toEqual([{ date: date(100), sent: 0, delivered: 0, failed: 0, received: 2 }]);

      expect(await svc.client.runRetention({ retentionDays: 90 })).toEqual({ deleted: 0 });

      expect(await snapshot()).toEqual(before);
      const left = (await list({ clientId: client })).messages.map((m) => m.id);
      expect(left).toEqual([recent, lateArrival]);
      for (const id of [oldA!, oldB!]) {
        expect((await thrownBy(svc.client.getReceived({ clientId: client, mode: 'MODE_LIVE', id }), AppError)).code).toBe(
          'RECEIVED_NOT_FOUND',
        );
      }
      const { rows } = await svc.pool.query('SELECT day::text, received FROM daily_rollups WHERE client_id = $1', [client]);
      expect(rows).toEqual([{ day: date(100), received: 2 }]);

      // A later run adds to the day already rolled up.
      await seed([{ clientId: client, deviceId: d1, receivedAt: day(100, 1) }]);
      const again = await snapshot();
      await svc.client.runRetention({ retentionDays: 90 });
      expect(await snapshot()).toEqual(again);
      const { rows: after } = await svc.pool.query('SELECT received FROM daily_rollups WHERE client_id = $1', [client]);
      expect(after).toEqual([{ received: 3 }]);
    });
  });
});
