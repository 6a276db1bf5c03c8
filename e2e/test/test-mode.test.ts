import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

describe('test mode', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;

  beforeAll(async () => {
    system = await TestSystem.shared();
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    await system?.stop();
  });

  const send = (to: string, mode: 'live' | 'test', headers: Record<string, string> = {}) =>
    system.api(
      '/v1/sms/send',
      client,
      { headers: { 'X-Device-ID': device.device_id, ...headers }, body: { to, message: `mode ${mode}` } },
      mode,
    );

  it.each([
    ['+33600000001', 'INVALID_NUMBER'],
    ['+33600000002', 'OUT_OF_NETWORK'],
    ['+33600000003', 'INSUFFICIENT_CREDIT'],
    ['+33600000004', 'BLACKLISTED'],
  ])('when a test key sends to the magic number %s, then the message ends failed with %s', async (to, code) => {
    const res = await send(to, 'test');
    expect(res.status).toBe(200);
    const status = await system.waitForStatus(client, String(res.body.message_id), 'failed', 20_000, 'test');
    expect(status.error).toMatchObject({ code });
  });

  it('when a test key sends to any other number, then it goes through sent to delivered without reaching a phone', async () => {
    const res = await send('+33612345678', 'test');
    const id = String(res.body.message_id);
    const status = await system.waitForStatus(client, id, 'delivered', 20_000, 'test');
    expect(status.sent_at).toBeTruthy();
    expect(agent.sentCount(id)).toBe(0);
  });

  it('when the device is offline, then a test key still sends (the simulated device stands in for it)', async () => {
    const drawer = await system.createDevice(client.client_id, 'offline phone');
    const auth = await system.api('/v1/auth/test', client, { headers: { 'X-Device-ID': drawer.device_id } }, 'test');
    expect(auth.body).toMatchObject({ device_status: 'online', mode: 'test' });
    const res = await system.api(
      '/v1/sms/send',
      client,
      { headers: { 'X-Device-ID': drawer.device_id }, body: { to: '+33612345678', message: 'x' } },
      'test',
    );
    expect(res.status).toBe(200);
    await system.waitForStatus(client, String(res.body.message_id), 'delivered', 20_000, 'test');
    const live = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': drawer.device_id },
      body: { to: '+33612345678', message: 'x' },
    });
    expect(live.status).toBe(503);
  });

  it('when test and live messages exist, then history and stats of each key show only their own', async () => {
    const live = await send('+33612345670', 'live');
    await system.waitForStatus(client, String(live.body.message_id), 'delivered');
    const test = await send('+33612345671', 'test');
    await system.waitForStatus(client, String(test.body.message_id), 'delivered', 20_000, 'test');

    const liveHistory = (await system.api('/v1/sms/history?limit=100', client)).body.data as { message_id: string }[];
    const testHistory = (await system.api('/v1/sms/history?limit=100', client, {}, 'test')).body.data as { message_id: string }[];
    expect(liveHistory.map((m) => m.message_id)).toContain(live.body.message_id);
    expect(liveHistory.map((m) => m.message_id)).not.toContain(test.body.message_id);
    expect(testHistory.map((m) => m.message_id)).toContain(test.body.message_id);
    expect(testHistory.map((m) => m.message_id)).not.toContain(live.body.message_id);
    const liveStats = (await system.api('/v1/sms/stats', client)).body.stats as { total_sent: number };
    expect(liveStats.total_sent).toBe(liveHistory.length);
  });
});
