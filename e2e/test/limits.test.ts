import { request } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

describe('idempotency and rate limiting', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;

  beforeAll(async () => {
    system = await TestSystem.start();
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when a send is retried with the same Idempotency-Key and body, then the first response comes back and the SMS is sent once', async () => {
    const req = {
      headers: { 'X-Device-ID': device.device_id, 'Idempotency-Key': 'order-1234' },
      body: { message: 'Une seule fois', to: '+33612345678' },
    };
    const first = await system.api('/v1/sms/send', client, req);
    expect(first.status).toBe(200);
    // Same body with its keys in another order: the same request.
    const second = await system.api('/v1/sms/send', client, { ...req, body: { to: '+33612345678', message: 'Une seule fois' } });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    await system.waitForStatus(client, String(first.body.message_id), 'delivered');
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.sent.filter((s) => s.text === 'Une seule fois')).toHaveLength(1);

    const other = await system.api('/v1/sms/send', client, { ...req, body: { to: '+33612345678', message: 'Un autre texte' } });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ success: false, error: { code: 'IDEMPOTENCY_KEY_REUSED' } });

    const bulkReq = {
      headers: { 'Idempotency-Key': 'campaign-7' },
      body: { recipients: ['+33611111111', '+33622222222'], message: 'Promo' },
    };
    const bulk1 = await system.api('/v1/sms/send-bulk', client, bulkReq);
    const bulk2 = await system.api('/v1/sms/send-bulk', client, bulkReq);
    expect(bulk2.body.batch_id).toBe(bulk1.body.batch_id);
  });

  it('when a request fails, then retrying it with the same key runs it again', async () => {
    const req = { headers: { 'X-Device-ID': device.device_id, 'Idempotency-Key': 'retry-me' }, body: { to: '12', message: 'x' } };
    expect((await system.api('/v1/sms/send', client, req)).status).toBe(400);
    expect((await system.api('/v1/sms/send', client, req)).status).toBe(400);
    const fixed = await system.api('/v1/sms/send', client, { ...req, body: { to: '+33612345678', message: 'x' } });
    expect(fixed.status).toBe(200);
  });

  it('when a client makes more than 100 requests in a minute across two gateway replicas, then the 101st is refused with 429 and Retry-After', async () => {
    const limited = await system.createClient();
    const secondGateway = await system.stack.addGateway();
    const urls = [system.stack.gatewayUrl, secondGateway];
    const headers = { 'X-API-Key': limited.live_api_key, 'X-Client-ID': limited.client_id };
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await request(`${urls[i % 2]}/v1/sms/history`, system.stack.certs.caPem, { headers });
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('100');
      remaining.push(Number(res.headers['ratelimit-remaining']));
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    }
    expect(remaining[0]).toBe(99);
    expect(remaining[99]).toBe(0);
    for (const url of urls) {
      const refused = await request(`${url}/v1/sms/history`, system.stack.certs.caPem, { headers });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
    }
    // Another client is not affected.
    expect((await system.api('/v1/sms/history', client)).status).toBe(200);
  });
});
