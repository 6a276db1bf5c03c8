import pg from 'pg';
import { createClient } from '@smsgw/platform';
import { messageProto, type message } from '@smsgw/proto';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

type Item = { message_id: string; status: string; to: string; message: string; sent_at: string | null; delivered_at: string | null };

describe('history and statistics', () => {
  let system: TestSystem;
  let client: DemoClient;
  let phoneA: DemoDevice;
  let phoneB: DemoDevice;
  let db: pg.Client;
  const ids: Record<string, string> = {};

  async function send(device: DemoDevice, to: string, text: string): Promise<string> {
    const res = await system.api('/v1/sms/send', client, { headers: { 'X-Device-ID': device.device_id }, body: { to, message: text } });
    expect(res.status).toBe(200);
    return String(res.body.message_id);
  }

  const history = async (query: string) => {
    const res = await system.api(`/v1/sms/history${query}`, client);
    return res as typeof res & { body: { data: Item[]; pagination: Record<string, number> } };
  };

  beforeAll(async () => {
    system = await TestSystem.shared();
    client = await system.createClient();
    phoneA = await system.createDevice(client.client_id, 'A');
    phoneB = await system.createDevice(client.client_id, 'B');
    await system.startAgent(client, phoneA);
    await system.startAgent(client, phoneB);
    ids.alice = await send(phoneA, '+33611111111', 'Bonjour Alice, 100% remboursé');
    ids.bob = await send(phoneA, '+33622222222', 'Bonjour Bob');
    ids.carol = await send(phoneB, '+33633333333', 'Carol: rendez-vous demain');
    ids.failed = await send(phoneB, '+33600000003', 'Pas de crédit');
    for (const id of [ids.alice, ids.bob, ids.carol]) await system.waitForStatus(client, id, 'delivered');
    await system.waitForStatus(client, ids.failed, 'failed');
    ids.queued = String(
      (
        await system.api('/v1/sms/send', client, {
          headers: { 'X-Device-ID': phoneA.device_id },
          body: { to: '+33644444444', message: 'Demain matin', scheduled_at: new Date(Date.now() + 86400_000).toISOString() },
        })
      ).body.message_id,
    );
    db = new pg.Client({ connectionString: system.stack.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await system?.stop();
  });

  it('when no filter is given, then every message comes newest first with the pagination object', async () => {
    const res = await history('');
    expect(res.status).toBe(200);
    expect(res.body.data.map((m) => m.message_id)).toEqual([ids.queued, ids.failed, ids.carol, ids.bob, ids.alice]);
    expect(res.body.pagination).toEqual({ current_page: 1, per_page: 50, total_pages: 1, total_items: 5 });
    const alice = res.body.data.find((m) => m.message_id === ids.alice)!;
    expect(alice).toMatchObject({ status: 'delivered', to: '+33611111111', message: 'Bonjour Alice, 100% remboursé' });
    expect(alice.sent_at).toBeTruthy();
    expect(alice.delivered_at).toBeTruthy();
    expect(res.body.data.find((m) => m.message_id === ids.queued)).toMatchObject({ sent_at: null, delivered_at: null });
  });

  it('when filters are given, then only the matching messages come back', async () => {
    const only = async (query: string) => (await history(query)).body.data.map((m) => m.message_id);
    expect(await only('?status=delivered')).toEqual([ids.carol, ids.bob, ids.alice]);
    expect(await only('?status=failed')).toEqual([ids.failed]);
    expect(await only('?status=queued')).toEqual([ids.queued]);
    expect(await only('?to=%2B33622222222')).toEqual([ids.bob]);
    expect(await only(`?device_id=${phoneB.device_id}`)).toEqual([ids.failed, ids.carol]);
    expect(await only('?search=bonjour')).toEqual([ids.bob, ids.alice]);
    expect(await only('?search=100%25')).toEqual([ids.alice]);
    expect(await only('?search=0%25%20r')).toEqual([ids.alice]);
    expect(await only('?status=delivered&device_id=' + phoneA.device_id + '&search=Bob')).toEqual([ids.bob]);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect(await only(`?from_date=${encodeURIComponent(future)}`)).toEqual([]);
    expect(await only(`?to_date=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([]);
  });

  it('when a page and a limit are given, then the page holds that slice', async () => {
    const page2 = await history('?limit=2&page=2');
    expect(page2.body.data.map((m) => m.message_id)).toEqual([ids.carol, ids.bob]);
    expect(page2.body.pagination).toEqual({ current_page: 2, per_page: 2, total_pages: 3, total_items: 5 });
    const beyond = await history('?limit=2&page=9');
    expect(beyond.body.data).toEqual([]);
  });

  it.each([
    ['?limit=101', 'INVALID_PAGINATION'],
    ['?limit=0', 'INVALID_PAGINATION'],
    ['?page=0', 'INVALID_PAGINATION'],
    ['?page=abc', 'INVALID_PAGINATION'],
    ['?from_date=yesterday', 'INVALID_DATE'],
    ['?to=0611', 'INVALID_PHONE_NUMBER'],
    ['?status=lost', 'INVALID_STATUS'],
    ['?search=%25', 'VALIDATION_ERROR'],
  ])('when history gets %s, then 400 %s', async (query, code) => {
    const res = await history(query);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code } });
  });

  it('when stats are asked, then totals, pending, delivery rate and by_day follow the definitions', async () => {
    const res = await system.api('/v1/sms/stats', client);
    expect(res.status).toBe(200);
    const stats = res.body.stats as {
      total_sent: number;
      delivered: number;
      failed: number;
      pending: number;
      delivery_rate: number;
      by_day: unknown[];
    };
    expect(stats).toMatchObject({ total_sent: 5, delivered: 3, failed: 1, pending: 1, delivery_rate: 60 });
    const today = new Date().toISOString().slice(0, 10);
    expect(stats.by_day).toEqual([{ date: today, sent: 5, delivered: 3, failed: 1, received: 0 }]);
    const period = res.body.period as { from: string; to: string };
    expect(Date.parse(period.from)).toBeLessThan(Date.parse(period.to));
    const deviceB = (await system.api(`/v1/sms/stats?device_id=${phoneB.device_id}`, client)).body.stats;
    expect(deviceB).toMatchObject({ total_sent: 2, delivered: 1, failed: 1, pending: 0, delivery_rate: 50 });
    const bad = await system.api('/v1/sms/stats?from_date=not-a-date', client);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'INVALID_DATE' } });
  });

  it('when stats are asked for a window given to the minute, then only the messages created inside it count', async () => {
    const from = new Date(Date.now() - 3 * 3600_000).toISOString();
    const to = new Date(Date.now() - 2 * 3600_000).toISOString();
    const empty = await system.api(`/v1/sms/stats?from_date=${encodeURIComponent(from)}&to_date=${encodeURIComponent(to)}`, client);
    expect(empty.body).toEqual({
      success: true,
      period: { from, to },
      stats: { total_sent: 0, delivered: 0, failed: 0, pending: 0, delivery_rate: 0, received: 0, by_day: [] },
    });

    const today = new Date().toISOString().slice(0, 10);
    const wholeDay = await system.api(`/v1/sms/stats?from_date=${today}&to_date=${today}`, client);
    expect(wholeDay.body.period).toEqual({ from: `${today}T00:00:00.000Z`, to: `${today}T23:59:59.999Z` });
    expect(wholeDay.body.stats).toMatchObject({ total_sent: 5 });
    const history = await system.api(`/v1/sms/history?from_date=${today}&to_date=${today}`, client);
    expect(history.body.pagination).toMatchObject({ total_items: 5 });
  });

  it('when the 90-day retention removes old messages, then history forgets them but no statistic changes', async () => {
    // Age two delivered messages by 120 days.
    const old = new Date(Date.now() - 120 * 86400_000);
    await db.query('UPDATE message.messages SET created_at = $2, queued_at = $2, due_at = $2 WHERE message_id = ANY($1)', [
      [ids.alice, ids.bob],
      old,
    ]);
    const period = `?from_date=${encodeURIComponent(new Date(Date.now() - 200 * 86400_000).toISOString())}&to_date=${encodeURIComponent(new Date().toISOString())}`;
    const before = (await system.api(`/v1/sms/stats${period}`, client)).body.stats as { by_day: { date: string }[] };
    expect(before.by_day).toHaveLength(2);

    // Retention runs as the scheduler's periodic job would run it.
    const messages = createClient<message.MessageServiceClient>(messageProto().MessageService, system.stack.messageAddress, {
      tls: system.stack.grpcCredentials('scheduler'),
    });
    const run = await messages.runRetention({ retentionDays: 90 });
    messages.close();
    expect(run.deleted).toBeGreaterThanOrEqual(2);

    const after = (await system.api(`/v1/sms/stats${period}`, client)).body.stats;
    expect(after).toEqual(before);
    const ids2 = (await history('?limit=100')).body.data.map((m) => m.message_id);
    expect(ids2).not.toContain(ids.alice);
    expect(ids2).not.toContain(ids.bob);
    const gone = await system.api(`/v1/sms/status/${ids.alice}`, client);
    expect(gone.status).toBe(404);
  });
});
