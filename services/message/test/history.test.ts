import { AppError, createPool, quoteIdent } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { matchCountStatement, pageStatement, type Statement } from '../src/data/history-statements';
import { containsPattern, type HistoryFilter } from '../src/domain/history';
import { DATABASE_URL, randomHex } from './support/database';
import { newClientId, newDeviceId } from './support/fleet';
import { seed, startMessageService, type RunningService, type Seeded, type SeedRow } from './support/service';

const HOUR = 3_600_000;

describe('ListMessages: the history, through gRPC', () => {
  let svc: RunningService;
  let rows: Seeded[];
  const client = `client_${Date.now()}1`;
  const other = `client_${Date.now()}2`;
  const phoneA = `device_a${randomHex(4)}`;
  const phoneB = `device_b${randomHex(4)}`;
  const alice = '+33611111111';
  const bob = '+33622222222';
  const carol = '+447911123456';
  const now = Date.now();
  const at = (hoursAgo: number) => new Date(Math.floor((now - hoursAgo * HOUR) / 1000) * 1000);
  // The same instant for two messages, to see the tie broken by message_id.
  const tie = at(30);

  beforeAll(async () => {
    svc = await startMessageService();
    const texts = [
      'Votre code est 4821',
      'Promo 50% ce week-end',
      'Promo 50 euros ce week-end',
      'Fichier file_name.pdf prêt',
      'Fichier filename.pdf prêt',
      'Chemin C:\\temp\\sms',
      'Rendez-vous demain à 10h',
      'CAFÉ CRÈME offert',
    ];
    const statuses = ['queued', 'sent', 'delivered', 'failed', 'cancelled'] as const;
    const mine: SeedRow[] = Array.from({ length: 37 }, (_, i) => ({
      clientId: client,
      deviceId: i % 3 === 0 ? phoneB : phoneA,
      to: [alice, bob, carol][i % 3]!,
      text: texts[i % texts.length]!,
      status: statuses[i % statuses.length]!,
      createdAt: i === 5 || i === 6 ? tie : at(i * 7 + 1),
    }));
    // Lookalikes that must never show up in this client's live history.
    const foreign: SeedRow[] = [
      { clientId: other, deviceId: phoneA, to: alice, text: 'Promo 50% ce week-end', status: 'delivered', createdAt: at(2) },
      { clientId: other, deviceId: `device_o${randomHex(4)}`, to: bob, text: 'Votre code est 4821', status: 'sent', createdAt: at(3) },
      {
        clientId: client,
        mode: 'MODE_TEST',
        deviceId: phoneA,
        to: alice,
        text: 'Promo 50% ce week-end',
        status: 'delivered',
        createdAt: at(4),
      },
      {
        clientId: client,
        mode: 'MODE_TEST',
        deviceId: phoneB,
        to: bob,
        text: 'Rendez-vous demain à 10h',
        status: 'queued',
        createdAt: at(5),
      },
    ];
    rows = await seed(svc, [...mine, ...foreign]);
  });

  afterAll(async () => {
    await svc?.stop();
  });

  /** What the history should hold: this client's rows of one mode, newest first. */
  const expected = (keep: (r: Seeded) => boolean = () => true, mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE') =>
    rows
      .filter((r) => r.clientId === client && r.mode === mode && keep(r))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.messageId < b.messageId ? 1 : -1))
      .map((r) => r.messageId);

  const list = (req: Partial<message.ListMessagesRequest> = {}) =>
    svc.client.listMessages({ clientId: client, mode: 'MODE_LIVE', page: 1, limit: 50, ...req });

  const ids = (res: message.ListMessagesResponse__Output) => res.messages.map((m) => m.messageId);

  async function failure(req: Partial<message.ListMessagesRequest>): Promise<AppError> {
    const err: unknown = await list(req).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }

  describe('when no filter is given', () => {
    it('then the page holds every live message of the client, newest first, ties broken by message_id', async () => {
      const res = await list();

      expect(ids(res)).toEqual(expected());
      expect(res).toMatchObject({ page: 1, perPage: 50, totalPages: 1, totalItems: 37 });
      const tied = res.messages.filter((m) => m.createdAt === tie.toISOString()).map((m) => m.messageId);
      expect(tied).toHaveLength(2);
      expect(tied[0]! > tied[1]!).toBe(true);
    });

    it('then each item is the full message with its status, recipient, text and times', async () => {
      const res = await list({ limit: 1 });
      const newest = rows.find((r) => r.messageId === expected()[0])!;

      expect(res.messages[0]).toMatchObject({
        messageId: newest.messageId,
        clientId: client,
        deviceId: newest.deviceId,
        mode: 'MODE_LIVE',
        status: newest.status,
        to: newest.to,
        text: newest.text,
        createdAt: newest.createdAt.toISOString(),
      });
    });
  });

  describe('when the history is read page by page', () => {
    it('then the pages follow one another without gap or overlap and the totals are exact', async () => {
      const all = expected();
      const seen: string[] = [];
      for (let page = 1; page <= 6; page++) {
        const res = await list({ page, limit: 7 });
        expect(res).toMatchObject({ page, perPage: 7, totalPages: 6, totalItems: 37 });
        expect(res.messages).toHaveLength(page < 6 ? 7 : 2);
        seen.push(...ids(res));
      }
      expect(seen).toEqual(all);
    });

    it('then a page past the end is empty but still tells the totals', async () => {
      const res = await list({ page: 9, limit: 10 });

      expect(res).toMatchObject({ messages: [], page: 9, perPage: 10, totalPages: 4, totalItems: 37 });
    });

    it('then a limit of 100 is allowed and an exact multiple gives whole pages', async () => {
      expect(await list({ limit: 100 })).toMatchObject({ perPage: 100, totalPages: 1, totalItems: 37 });
      expect(await list({ status: 'queued', limit: 4 })).toMatchObject({ totalPages: 2, totalItems: 8 });
    });

    it('then nothing to show gives zero pages and zero items', async () => {
      const res = await list({ to: '+33699999999' });

      expect(res).toMatchObject({ messages: [], page: 1, perPage: 50, totalPages: 0, totalItems: 0 });
    });
  });

  describe('when one filter is given', () => {
    it.each(['queued', 'sent', 'delivered', 'failed', 'cancelled'])('then status=%s keeps only messages in that status', async (status) => {
      const res = await list({ status });

      expect(ids(res)).toEqual(expected((r) => r.status === status));
      expect(res.totalItems).toBe(expected((r) => r.status === status).length);
      expect(res.messages.every((m) => m.status === status)).toBe(true);
    });

    it('then `to` keeps the messages to exactly that number', async () => {
      expect(ids(await list({ to: carol }))).toEqual(expected((r) => r.to === carol));
      expect((await list({ to: '+3361111111' })).totalItems).toBe(0);
    });

    it('then device_id keeps the messages of that device', async () => {
      const res = await list({ deviceId: phoneB });

      expect(ids(res)).toEqual(expected((r) => r.deviceId === phoneB));
      expect(res.totalItems).toBe(13);
    });

    it('then from_date and to_date bound created_at, both ends included', async () => {
      const from = at(7 * 10 + 1);
      const to = at(7 * 3 + 1);
      const res = await list({ fromDate: from.toISOString(), toDate: to.toISOString() });

      const inside = expected((r) => r.createdAt >= from && r.createdAt <= to);
      expect(ids(res)).toEqual(inside);
      expect(res.messages[0]!.createdAt).toBe(to.toISOString());
      expect(res.messages.at(-1)!.createdAt).toBe(from.toISOString());
    });

    it('then from_date alone and to_date alone are open on the other side', async () => {
      const pivot = at(100);
      expect(ids(await list({ fromDate: pivot.toISOString() }))).toEqual(expected((r) => r.createdAt >= pivot));
      expect(ids(await list({ toDate: pivot.toISOString() }))).toEqual(expected((r) => r.createdAt <= pivot));
    });

    it('then a date without time covers the whole UTC day, and an offset is honoured', async () => {
      const day = at(50).toISOString().slice(0, 10);
      const res = await list({ fromDate: day, toDate: day });
      expect(ids(res)).toEqual(expected((r) => r.createdAt.toISOString().startsWith(day)));

      const pivot = at(100);
      const shifted = new Date(pivot.getTime() + 2 * HOUR)
        .toISOString()
        .replace('Z', '+02:00')
        .replace(/\.\d{3}/, '');
      expect(ids(await list({ fromDate: shifted }))).toEqual(expected((r) => r.createdAt >= pivot));
    });

    it('then search finds the text anywhere, whatever the case', async () => {
      expect(ids(await list({ search: 'promo' }))).toEqual(expected((r) => r.text.startsWith('Promo')));
      expect(ids(await list({ search: 'café crème' }))).toEqual(expected((r) => r.text.startsWith('CAFÉ')));
      expect(ids(await list({ search: 'CODE EST 48' }))).toEqual(expected((r) => r.text.includes('code est 48')));
    });

    it('then the LIKE wildcards typed in a search are literal characters', async () => {
      expect(ids(await list({ search: '50%' }))).toEqual(expected((r) => r.text.includes('50%')));
      expect(ids(await list({ search: 'file_name' }))).toEqual(expected((r) => r.text.includes('file_name')));
      expect(ids(await list({ search: 'C:\\temp' }))).toEqual(expected((r) => r.text.includes('C:\\temp')));
      expect((await list({ search: '0% ' })).totalItems).toBe(expected((r) => r.text.includes('0% ')).length);
      expect((await list({ search: 'e_n' })).totalItems).toBe(expected((r) => r.text.includes('e_n')).length);
      expect((await list({ search: ':\\t' })).totalItems).toBe(expected((r) => r.text.includes(':\\t')).length);
      expect((await list({ search: 'e%n' })).totalItems).toBe(0);
      expect((await list({ search: '50%' })).totalItems).toBeLessThan((await list({ search: 'mo 50' })).totalItems);
    });
  });

  describe('when a search is short or matches more than 1,000 messages', () => {
    const big = `client_${Date.now()}9`;

    beforeAll(async () => {
      await seed(
        svc,
        Array.from({ length: 1_030 }, (_, i) => ({ clientId: big, deviceId: phoneA, text: `Colis ${i} arrivé`, createdAt: at(i % 500) })),
      );
    });

    it('then a term under 3 characters is refused with VALIDATION_ERROR naming search', async () => {
      for (const search of ['é', 'ab', '%']) {
        const err: unknown = await list({ search }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ field: 'search', code: 'SEARCH_TOO_SHORT' }] });
      }
      expect((await list({ search: 'ème' })).totalItems).toBe(expected((r) => r.text.toLowerCase().includes('ème')).length);
    });

    it('then total_items counts the 1,000 newest matches, the pages end there, and a date range reaches older ones', async () => {
      const search = (req: Partial<message.ListMessagesRequest>) =>
        svc.client.listMessages({ clientId: big, mode: 'MODE_LIVE', page: 1, limit: 50, search: 'COLIS', ...req });

      const first = await search({});
      const last = await search({ page: 10, limit: 100 });
      const beyond = await search({ page: 11, limit: 100 });
      const rare = await search({ search: 'colis 1029 ' });
      const older = await search({ fromDate: at(499).toISOString(), toDate: at(480).toISOString() });

      expect(first).toMatchObject({ totalItems: 1_000, totalPages: 20 });
      expect(last.messages).toHaveLength(100);
      expect(last.totalItems).toBe(1_000);
      expect(beyond).toMatchObject({ messages: [], totalItems: 1_000 });
      expect(rare.totalItems).toBe(1);
      expect(older.totalItems).toBe(Array.from({ length: 1_030 }, (_, i) => i % 500).filter((d) => d >= 480 && d <= 499).length);
    });
  });

  describe('when filters are combined', () => {
    it('then a message must match all of them', async () => {
      const from = at(200);
      const res = await list({ status: 'delivered', deviceId: phoneA, fromDate: from.toISOString(), search: 'end' });

      const keep = (r: Seeded) =>
        r.status === 'delivered' && r.deviceId === phoneA && r.createdAt >= from && r.text.toLowerCase().includes('end');
      expect(ids(res)).toEqual(expected(keep));
      expect(res.totalItems).toBeGreaterThan(0);
    });

    it('then to, status and dates narrow down together, page by page', async () => {
      const keep = (r: Seeded) => r.to === alice && r.status !== 'cancelled' && r.createdAt <= at(20);
      const wanted = expected(keep);
      const statuses = ['queued', 'sent', 'delivered', 'failed'];
      const got: string[] = [];
      for (const status of statuses) {
        const res = await list({ to: alice, status, toDate: at(20).toISOString(), limit: 2 });
        for (let page = 1; page <= res.totalPages; page++)
          got.push(...ids(await list({ to: alice, status, toDate: at(20).toISOString(), limit: 2, page })));
      }
      expect(got.sort()).toEqual([...wanted].sort());
    });

    it('then a combination nobody matches is empty', async () => {
      expect(await list({ to: bob, deviceId: phoneB })).toMatchObject({ totalItems: 0, totalPages: 0, messages: [] });
    });
  });

  describe('when a search is run either way, through message_texts or on the row', () => {
    it('then both ways give the same pages and the same count, those the history should hold', async () => {
      const run = async (statement: Statement) => {
        const ways = [];
        for (const way of ['texts', 'row'] as const) ways.push((await svc.pool.query(statement(way))).rows);
        return ways;
      };
      const from = at(200);
      const cases: { filter: HistoryFilter; keep: (r: Seeded) => boolean }[] = [
        { filter: { textPattern: containsPattern('promo') }, keep: (r) => r.text.startsWith('Promo') },
        { filter: { textPattern: containsPattern('50%') }, keep: (r) => r.text.includes('50%') },
        {
          filter: { textPattern: containsPattern('end'), status: 'delivered' },
          keep: (r) => r.status === 'delivered' && /end/i.test(r.text),
        },
        {
          filter: { textPattern: containsPattern('e'), deviceId: phoneA, from },
          keep: (r) => r.deviceId === phoneA && r.createdAt >= from && /e/i.test(r.text),
        },
        { filter: { textPattern: containsPattern('ce week'), to: bob }, keep: (r) => r.to === bob && r.text.includes('ce week') },
      ];
      for (const { filter, keep } of cases) {
        const wanted = expected(keep);
        for (const [limit, offset] of [
          [50, 0],
          [2, 1],
        ] as const) {
          const pages = await run(pageStatement(client, 'live', filter, limit, offset));
          for (const page of pages)
            expect(page.map((r: { message_id: string }) => r.message_id)).toEqual(wanted.slice(offset, offset + limit));
        }
        const counts = await run(matchCountStatement(client, 'live', filter));
        for (const count of counts) expect(count).toEqual([{ total: wanted.length }]);
        expect(wanted.length).toBeGreaterThan(0);
      }
    });
  });

  describe('when a batch\u2019s messages share one text', () => {
    const bulkClient = newClientId();
    const device = newDeviceId();
    const soldes = 'Soldes d\u2019hiver : -30 % sur tout le magasin ce samedi';
    let bulk: message.SendBatchResponse__Output;
    let personal: message.SendBatchResponse__Output;

    beforeAll(async () => {
      const batch = (texts: string[]) =>
        svc.client.sendBatch({
          clientId: bulkClient,
          mode: 'MODE_LIVE',
          priority: 3,
          deviceIds: texts.map(() => device),
          messages: texts.map((text, i) => ({ to: `+3361234567${i}`, text })),
        });
      bulk = await batch([soldes, soldes, soldes]);
      personal = await batch(['Bonjour Zoé, vos soldes vous attendent', 'Bonjour Yann, vos soldes vous attendent']);
    });

    const search = (term: string, limit: number) =>
      svc.client.listMessages({ clientId: bulkClient, mode: 'MODE_LIVE', page: 1, limit, search: term });
    const newestFirst = (batch: message.SendBatchResponse__Output) =>
      batch.messages
        .map((m) => m.messageId)
        .sort()
        .reverse();

    it('then the text is stored once for the batch, and a personalised batch keeps one text a message', async () => {
      const { rows } = await svc.pool.query(
        'SELECT message_id, batch FROM message_texts WHERE message_id = ANY($1::text[]) ORDER BY batch DESC, message_id',
        [[bulk.batchId, personal.batchId, ...bulk.messages.map((m) => m.messageId), ...personal.messages.map((m) => m.messageId)]],
      );
      expect(rows).toEqual([
        { message_id: bulk.batchId, batch: true },
        ...personal.messages.map((m) => ({ message_id: m.messageId, batch: false })).sort((a, b) => (a.message_id < b.message_id ? -1 : 1)),
      ]);
    });

    it('then a search finds each of its messages and counts them, either way', async () => {
      const page = await search('HIVER', 2);
      expect(page).toMatchObject({ totalItems: 3, totalPages: 2 });
      expect(ids(page)).toEqual(newestFirst(bulk).slice(0, 2));
      expect(ids(await search('soldes', 50))).toEqual([...newestFirst(personal), ...newestFirst(bulk)]);
      expect(ids(await search('Zoé', 50))).toEqual([personal.messages[0]!.messageId]);
      const filters: HistoryFilter[] = [
        { textPattern: containsPattern('hiver') },
        { textPattern: containsPattern('hiver'), deviceId: device },
      ];
      for (const filter of filters) {
        for (const way of ['texts', 'row'] as const) {
          const rows = (await svc.pool.query(pageStatement(bulkClient, 'live', filter, 2, 1)(way))).rows;
          expect(rows.map((r: { message_id: string }) => r.message_id)).toEqual(newestFirst(bulk).slice(1, 3));
          expect((await svc.pool.query(matchCountStatement(bulkClient, 'live', filter)(way))).rows).toEqual([{ total: 3 }]);
        }
      }
    });

    it('then the text goes with the batch once the retention has taken its messages', async () => {
      const ago = new Date(Date.now() - 100 * 24 * HOUR);
      await svc.pool.query('UPDATE messages SET created_at = $2 WHERE batch_id = $1', [bulk.batchId, ago]);
      await svc.pool.query('UPDATE batches SET created_at = $2 WHERE batch_id = $1', [bulk.batchId, ago]);

      expect(await svc.client.runRetention({ retentionDays: 90 })).toMatchObject({ deleted: 3 });

      expect((await svc.pool.query('SELECT 1 FROM message_texts WHERE message_id = $1', [bulk.batchId])).rows).toEqual([]);
      expect(await search('hiver', 50)).toMatchObject({ messages: [], totalItems: 0 });
      expect(ids(await search('soldes', 50))).toEqual(newestFirst(personal));
    });
  });

  describe('when only the total is asked for (limit 1), over any mix of filters', () => {
    it('then total_items is exact for whole days, partial days, open ends and every status and device', async () => {
      const dayOf = (hoursAgo: number) => at(hoursAgo).toISOString().slice(0, 10);
      const ranges: { fromDate?: string; toDate?: string; keep: (r: Seeded) => boolean }[] = [
        { keep: () => true },
        { fromDate: at(95).toISOString(), keep: (r) => r.createdAt >= at(95) },
        { toDate: at(95).toISOString(), keep: (r) => r.createdAt <= at(95) },
        { fromDate: at(230).toISOString(), toDate: at(15).toISOString(), keep: (r) => r.createdAt >= at(230) && r.createdAt <= at(15) },
        { fromDate: at(30).toISOString(), toDate: at(30).toISOString(), keep: (r) => r.createdAt.getTime() === at(30).getTime() },
        {
          fromDate: dayOf(200),
          toDate: dayOf(40),
          keep: (r) => r.createdAt.toISOString().slice(0, 10) >= dayOf(200) && r.createdAt.toISOString().slice(0, 10) <= dayOf(40),
        },
        { fromDate: dayOf(100), keep: (r) => r.createdAt.toISOString().slice(0, 10) >= dayOf(100) },
      ];
      const narrowings: { req: Partial<message.ListMessagesRequest>; keep: (r: Seeded) => boolean }[] = [
        { req: {}, keep: () => true },
        ...(['queued', 'sent', 'delivered', 'failed', 'cancelled'] as const).map((status) => ({
          req: { status },
          keep: (r: Seeded) => r.status === status,
        })),
        { req: { deviceId: phoneA }, keep: (r) => r.deviceId === phoneA },
        { req: { deviceId: phoneB, status: 'delivered' }, keep: (r) => r.deviceId === phoneB && r.status === 'delivered' },
        { req: { to: bob }, keep: (r) => r.to === bob },
        { req: { search: 'prêt' }, keep: (r) => r.text.includes('prêt') },
      ];
      for (const range of ranges) {
        for (const narrowing of narrowings) {
          const want = expected((r) => range.keep(r) && narrowing.keep(r)).length;
          const res = await list({ ...narrowing.req, fromDate: range.fromDate ?? '', toDate: range.toDate ?? '', limit: 1 });
          expect({ range: [range.fromDate, range.toDate], req: narrowing.req, total: res.totalItems }).toEqual({
            range: [range.fromDate, range.toDate],
            req: narrowing.req,
            total: want,
          });
          expect(res.totalPages).toBe(want);
        }
      }
    });

    it('then a message changing status or date moves between the totals at once', async () => {
      const target = rows.find((r) => r.clientId === client && r.status === 'queued')!;
      const before = (await list({ status: 'failed', limit: 1 })).totalItems;
      await svc.pool.query(`UPDATE messages SET status = 'failed' WHERE message_id = $1`, [target.messageId]);
      expect((await list({ status: 'failed', limit: 1 })).totalItems).toBe(before + 1);
      await svc.pool.query(`UPDATE messages SET status = 'queued' WHERE message_id = $1`, [target.messageId]);
      expect((await list({ status: 'failed', limit: 1 })).totalItems).toBe(before);
    });

    it('then a change made from a session with another search_path (an operator in psql) is counted too', async () => {
      const target = rows.find((r) => r.clientId === client && r.status === 'cancelled')!;
      const outsider = createPool({ url: DATABASE_URL, schema: 'public', max: 1 });
      try {
        await outsider.query(`UPDATE ${quoteIdent(svc.schema)}.messages SET status = 'delivered' WHERE message_id = $1`, [
          target.messageId,
        ]);
        expect((await list({ status: 'cancelled', limit: 1 })).totalItems).toBe(expected((r) => r.status === 'cancelled').length - 1);
        await outsider.query(`UPDATE ${quoteIdent(svc.schema)}.messages SET status = 'cancelled' WHERE message_id = $1`, [
          target.messageId,
        ]);
      } finally {
        await outsider.end();
      }
      expect((await list({ status: 'cancelled', limit: 1 })).totalItems).toBe(expected((r) => r.status === 'cancelled').length);
    });
  });

  describe('when another client or the other mode has messages', () => {
    it('then the live history never shows test-mode messages nor another client\u2019s', async () => {
      const res = await list({ search: 'promo', limit: 100 });

      expect(res.messages.every((m) => m.clientId === client && m.mode === 'MODE_LIVE')).toBe(true);
      expect(ids(await list({ limit: 100 }))).not.toEqual(expect.arrayContaining([rows.at(-1)!.messageId]));
    });

    it('then the test-mode history shows only the test-mode messages of the client', async () => {
      const res = await list({ mode: 'MODE_TEST' });

      expect(ids(res)).toEqual(expected(() => true, 'MODE_TEST'));
      expect(res.totalItems).toBe(2);
    });

    it('then the other client sees only its own messages', async () => {
      const res = await list({ clientId: other });

      expect(res.totalItems).toBe(2);
      expect(res.messages.every((m) => m.clientId === other)).toBe(true);
    });
  });

  describe('when the request is invalid', () => {
    it.each([
      ['limit 101', { limit: 101 }, 'limit'],
      ['limit 0', { limit: 0 }, 'limit'],
      ['page 0', { page: 0 }, 'page'],
      ['a negative page', { page: -3 }, 'page'],
    ])('then %s is INVALID_PAGINATION', async (_name, req, field) => {
      const err = await failure(req);

      expect(err.code).toBe('INVALID_PAGINATION');
      expect(err.details).toEqual([{ field, code: 'INVALID_PAGINATION' }]);
    });

    it.each([
      ['from_date', { fromDate: 'yesterday' }],
      ['from_date', { fromDate: '2025-13-01' }],
      ['to_date', { toDate: '2025-02-30' }],
      ['to_date', { toDate: '2025-02-03T25:00:00Z' }],
      ['to_date', { toDate: '1712345678' }],
    ])('then an unreadable %s is INVALID_DATE naming the field', async (field, req) => {
      const err = await failure(req);

      expect(err.code).toBe('INVALID_DATE');
      expect(err.details).toEqual([{ field, code: 'INVALID_DATE' }]);
    });

    it('then from_date after to_date is INVALID_DATE', async () => {
      const err = await failure({ fromDate: '2025-03-02T00:00:00Z', toDate: '2025-03-01T23:59:59Z' });

      expect(err.code).toBe('INVALID_DATE');
      expect(err.details).toEqual([{ field: 'from_date', code: 'INVALID_DATE' }]);
    });

    it('then an unknown status is a VALIDATION_ERROR on status', async () => {
      const err = await failure({ status: 'pending' });

      expect(err.code).toBe('VALIDATION_ERROR');
      expect(err.details).toEqual([{ field: 'status', code: 'INVALID_STATUS' }]);
    });
  });
});
