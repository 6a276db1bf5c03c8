import { TestSystem, type DemoClient, type DemoDevice } from './support/system';
import type { AgentProcess } from './support/agent';

describe('the per-device queue: priority and cancellation', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let agent: AgentProcess;

  async function send(body: Record<string, unknown>): Promise<string> {
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', ...body },
    });
    expect(res.status).toBe(200);
    return String(res.body.message_id);
  }

  beforeAll(async () => {
    // A phone that sends one SMS every 800 ms, so that a queue builds up.
    system = await TestSystem.start({ DISPATCH_INTERVAL_MIN_MS: '800', DISPATCH_INTERVAL_MAX_MS: '800' });
    client = await system.createClient();
    device = await system.createDevice(client.client_id);
    agent = await system.startAgent(client, device);
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('when low-priority messages wait on a busy device and a very high one arrives, then it is sent next', async () => {
    const lows: string[] = [];
    for (let i = 0; i < 4; i++) lows.push(await send({ message: `low ${i}`, priority: 5 }));
    const high = await send({ message: 'urgent', priority: 1 });
    for (const id of [...lows, high]) await system.waitForStatus(client, id, 'delivered', 30_000);

    const order = agent.sent.map((s) => s.message_id).filter((id) => id === high || lows.includes(id));
    // The first low one may already be on the phone when the urgent one arrives; none other.
    expect(order.indexOf(high)).toBeLessThanOrEqual(1);
    expect(order.filter((id) => id !== high)).toEqual(lows);
    const status = await system.api(`/v1/sms/status/${high}`, client);
    expect(status.body.priority).toBe('very_high');
  });

  it('when a queued message is cancelled, then it is cancelled once and never sent; a delivered one cannot be', async () => {
    const later = await send({ message: 'plus tard', scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    const cancelled = await system.api(`/v1/sms/${later}`, client, { method: 'DELETE' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ success: true, message_id: later, status: 'cancelled' });
    expect(typeof cancelled.body.message).toBe('string');

    const again = await system.api(`/v1/sms/${later}`, client, { method: 'DELETE' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'MESSAGE_NOT_CANCELLABLE', details: [{ status: 'cancelled' }] } });

    const done = await send({ message: 'déjà parti' });
    await system.waitForStatus(client, done, 'delivered');
    const late = await system.api(`/v1/sms/${done}`, client, { method: 'DELETE' });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: 'MESSAGE_NOT_CANCELLABLE', details: [{ status: 'delivered' }] } });

    const unknown = await system.api('/v1/sms/msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', client, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(agent.sentCount(later)).toBe(0);
  });

  it('when cancels race the hub claiming the same messages, then each message is either cancelled and never sent, or sent and not cancelled', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await send({ message: `race ${i}` }));
    const outcomes = await Promise.all(ids.map((id) => system.api(`/v1/sms/${id}`, client, { method: 'DELETE' })));
    const cancelled = ids.filter((_, i) => outcomes[i]!.status === 200);
    const refused = ids.filter((_, i) => outcomes[i]!.status === 409);
    expect(cancelled.length + refused.length).toBe(ids.length);
    expect(cancelled.length).toBeGreaterThan(0);

    for (const id of refused) await system.waitForStatus(client, id, 'delivered', 30_000);
    // Leave time for any wrongly offered message to reach the phone.
    await new Promise((r) => setTimeout(r, 2000));
    for (const id of cancelled) {
      expect(agent.sentCount(id)).toBe(0);
      expect((await system.api(`/v1/sms/status/${id}`, client)).body.status).toBe('cancelled');
    }
    for (const id of refused) expect(agent.sentCount(id)).toBe(1);
  });
});
