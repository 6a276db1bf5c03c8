import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

const numbers = (n: number, start = 612000000) => Array.from({ length: n }, (_, i) => `+33${start + i}`);

describe('the messaging API: batches, validation, isolation', () => {
  let system: TestSystem;
  let client: DemoClient;
  let phoneA: DemoDevice;
  let phoneB: DemoDevice;
  let agentA: AgentProcess;
  let agentB: AgentProcess;

  beforeAll(async () => {
    system = await TestSystem.shared();
    client = await system.createClient();
    phoneA = await system.createDevice(client.client_id, 'A');
    phoneB = await system.createDevice(client.client_id, 'B');
    agentA = await system.startAgent(client, phoneA);
    agentB = await system.startAgent(client, phoneB);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a bulk send names a device, then every recipient gets the text through it, in one batch', async () => {
    const recipients = numbers(12);
    const res = await system.api('/v1/sms/send-bulk', client, {
      headers: { 'X-Device-ID': phoneA.device_id },
      body: { recipients, message: 'Soldes ce week-end !', priority: 4, metadata: { campaign: 'winter' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, total_recipients: 12 });
    expect(String(res.body.batch_id)).toMatch(/^batch_[0-9A-Z]{26}$/);
    const messages = res.body.messages as { message_id: string; to: string; status: string; device_id: string }[];
    expect(messages.map((m) => m.to)).toEqual(recipients);
    expect(new Set(messages.map((m) => m.status))).toEqual(new Set(['queued']));
    expect(new Set(messages.map((m) => m.device_id))).toEqual(new Set([phoneA.device_id]));
    for (const m of messages) await system.waitForStatus(client, m.message_id, 'delivered');
    const status = await system.api(`/v1/sms/status/${messages[0]!.message_id}`, client);
    expect(status.body).toMatchObject({ priority: 'low', metadata: { campaign: 'winter' } });
  });

  it('when a bulk send names no device, then it is spread over every online device', async () => {
    const res = await system.api('/v1/sms/send-bulk', client, { body: { recipients: numbers(20, 613000000), message: 'Réparti' } });
    expect(res.status).toBe(200);
    const messages = res.body.messages as { message_id: string; device_id: string }[];
    const perDevice = new Map<string, number>();
    for (const m of messages) perDevice.set(m.device_id, (perDevice.get(m.device_id) ?? 0) + 1);
    expect([...perDevice.keys()].sort()).toEqual([phoneA.device_id, phoneB.device_id].sort());
    expect(Math.abs(perDevice.get(phoneA.device_id)! - perDevice.get(phoneB.device_id)!)).toBeLessThanOrEqual(2);
    for (const m of messages) await system.waitForStatus(client, m.message_id, 'delivered');
    const ids = new Set(messages.map((m) => m.message_id));
    expect(agentA.sent.filter((s) => ids.has(s.message_id)).length + agentB.sent.filter((s) => ids.has(s.message_id)).length).toBe(20);
  });

  it('when a personalised bulk send is accepted, then each recipient gets its own text and metadata', async () => {
    const res = await system.api('/v1/sms/send-bulk-personalized', client, {
      headers: { 'X-Device-ID': phoneB.device_id },
      body: {
        messages: [
          { to: '+33611111111', message: 'Bonjour Alice, votre rendez-vous est à 9 h.', metadata: { name: 'Alice' } },
          { to: '+33622222222', message: 'Bonjour Bob, votre rendez-vous est à 10 h.' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, total_recipients: 2 });
    const [alice, bob] = res.body.messages as { message_id: string; to: string }[];
    await system.waitForStatus(client, alice!.message_id, 'delivered');
    await system.waitForStatus(client, bob!.message_id, 'delivered');
    expect(agentB.sent.find((s) => s.message_id === alice!.message_id)?.text).toBe('Bonjour Alice, votre rendez-vous est à 9 h.');
    const aliceStatus = await system.api(`/v1/sms/status/${alice!.message_id}`, client);
    expect(aliceStatus.body.metadata).toEqual({ name: 'Alice' });
  });

  it('when a text needs several parts or characters outside GSM-7, then the response says how many parts and which encoding', async () => {
    const long = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: 'a'.repeat(161) } });
    expect(long.body).toMatchObject({ parts: 2, encoding: 'GSM-7' });
    const unicode = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: 'Привет 👋' } });
    expect(unicode.body).toMatchObject({ parts: 1, encoding: 'UCS-2' });
    const limit = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: '€'.repeat(1600) } });
    expect(limit.status).toBe(200);
  });

  const single = { to: '+33612345678', message: 'ok' };
  it.each([
    ['INVALID_PHONE_NUMBER', { ...single, to: '0612345678' }, 'to'],
    ['INVALID_PHONE_NUMBER', { ...single, to: '+3361' }, 'to'],
    ['MESSAGE_REQUIRED', { to: single.to }, 'message'],
    ['MESSAGE_REQUIRED', { ...single, message: '   ' }, 'message'],
    ['MESSAGE_TOO_LONG', { ...single, message: 'x'.repeat(1601) }, 'message'],
    ['INVALID_PRIORITY', { ...single, priority: 0 }, 'priority'],
    ['INVALID_PRIORITY', { ...single, priority: '1' }, 'priority'],
    ['INVALID_SCHEDULED_AT', { ...single, scheduled_at: '2020-01-01T00:00:00Z' }, 'scheduled_at'],
    ['INVALID_SCHEDULED_AT', { ...single, scheduled_at: new Date(Date.now() + 31 * 86400_000).toISOString() }, 'scheduled_at'],
    ['INVALID_SCHEDULED_AT', { ...single, scheduled_at: 'tomorrow' }, 'scheduled_at'],
    ['METADATA_TOO_LARGE', { ...single, metadata: { blob: 'x'.repeat(1100) } }, 'metadata'],
    ['METADATA_TOO_LARGE', { ...single, metadata: ['not', 'an', 'object'] }, 'metadata'],
    ['INVALID_WEBHOOK_URL', { ...single, webhook_url: 'http://example.com/hook' }, 'webhook_url'],
    ['INVALID_WEBHOOK_URL', { ...single, webhook_url: 'not a url' }, 'webhook_url'],
  ])('when send gets a body breaking one rule, then 400 %s names the field', async (code, body, field) => {
    const res = await system.api('/v1/sms/send', client, { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code, details: [{ field, code }] } });
    expect((res.body.error as { details: unknown[] }).details).toHaveLength(1);
  });

  it('when several fields are wrong, then 400 VALIDATION_ERROR lists every one', async () => {
    const res = await system.api('/v1/sms/send', client, { body: { to: 'nope', message: '', priority: 9, webhook_url: 'ftp://x' } });
    expect(res.status).toBe(400);
    const error = res.body.error as { code: string; details: { field: string; code: string }[] };
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.map((d) => d.field).sort()).toEqual(['message', 'priority', 'to', 'webhook_url']);
  });

  it('when a bulk send has one bad recipient or more than 100, then nothing is sent and the error says which', async () => {
    const bad = await system.api('/v1/sms/send-bulk', client, {
      body: { recipients: ['+33612345678', '12', '+33612345679'], message: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'INVALID_PHONE_NUMBER', details: [{ field: 'recipients[1]' }] } });
    const tooMany = await system.api('/v1/sms/send-bulk', client, { body: { recipients: numbers(101), message: 'x' } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: { code: 'TOO_MANY_RECIPIENTS' } });
    const personal = await system.api('/v1/sms/send-bulk-personalized', client, {
      body: { messages: [{ to: '+33612345678', message: 'ok' }, { to: '+33612345678' }] },
    });
    expect(personal.status).toBe(400);
    expect(personal.body).toMatchObject({ error: { code: 'MESSAGE_REQUIRED', details: [{ field: 'messages[1].message' }] } });
    const history = await system.api('/v1/sms/history?limit=100&to=%2B33612345679', client);
    expect((history.body.data as unknown[]).length).toBe(0);
  });

  it('when the body is not a JSON object or is over 1 MB, then INVALID_JSON or PAYLOAD_TOO_LARGE', async () => {
    for (const rawBody of ['[1,2]', '"text"', 'null', '{oops}']) {
      const res = await system.api('/v1/sms/send', client, { rawBody });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { code: 'INVALID_JSON' } });
    }
    const huge = await system.api('/v1/sms/send', client, {
      rawBody: JSON.stringify({ to: '+33612345678', message: 'x'.repeat(1_100_000) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it("when another client asks for, cancels or searches a client's message, then it never sees it", async () => {
    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': phoneA.device_id },
      body: { to: '+33699999999', message: 'confidentiel', scheduled_at: new Date(Date.now() + 3600_000).toISOString() },
    });
    const id = String(sent.body.message_id);
    const other = await system.createClient();
    const otherDevice = await system.createDevice(other.client_id);
    await system.startAgent(other, otherDevice);
    for (const res of [await system.api(`/v1/sms/status/${id}`, other), await system.api(`/v1/sms/${id}`, other, { method: 'DELETE' })]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'MESSAGE_NOT_FOUND' } });
    }
    const history = await system.api('/v1/sms/history?search=confidentiel', other);
    expect(history.body.data).toEqual([]);
    const stats = await system.api('/v1/sms/stats', other);
    expect(stats.body.stats).toMatchObject({ total_sent: 0 });
    // The test key of the same client sees nothing of its live data either.
    expect((await system.api(`/v1/sms/status/${id}`, client, {}, 'test')).status).toBe(404);
    expect((await system.api(`/v1/sms/${id}`, client, { method: 'DELETE' })).body).toMatchObject({ status: 'cancelled' });
  });
});
