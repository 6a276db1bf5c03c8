import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// Several SIMs and replies (issue 24): a phone of protocol 4 reports its SIMs, a message names
// the SIM it goes through or follows the client's SIM rule, the phone's limits apply to each
// SIM, status and webhooks show the SIM used; a recipient's reply reaches the message's own
// webhook_url; a number that opts out fails the messages still waiting for it.

describe('several SIMs, replies, and opt-outs of waiting messages', () => {
  let system: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    system = await TestSystem.shared();
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
  });

  async function clientWithHooks(events = 'sms.sent,sms.delivered,sms.failed'): Promise<{ client: DemoClient; hooks: string }> {
    const client = await system.createClient();
    const hooks = `/${client.client_id}`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', events);
    return { client, hooks };
  }

  async function dualSimPhone(client: DemoClient, limits: string[] = []): Promise<DemoDevice> {
    const device = await system.createDevice(client.client_id, 'dual SIM');
    if (limits.length > 0) await system.cli('set-device-limits', '--client', client.client_id, '--device', device.device_id, ...limits);
    await system.startAgent(client, device, { extraArgs: ['--sims', '2'] });
    return device;
  }

  async function send(client: DemoClient, body: Record<string, unknown>, device?: DemoDevice) {
    return system.api('/v1/sms/send', client, { headers: device ? { 'X-Device-ID': device.device_id } : {}, body });
  }

  /** The status once `accept` says so, asked every 500 ms (the client's 100 requests a minute). */
  function statusWhen(client: DemoClient, id: string, accept: (s: Record<string, unknown>) => boolean, timeoutMs = 30_000) {
    return eventually(
      async () => {
        const res = await system.api(`/v1/sms/status/${id}`, client);
        return accept(res.body) ? res.body : undefined;
      },
      timeoutMs,
      `the status of ${id}`,
      500,
    );
  }

  it('when a dual-SIM phone sends, then messages without a SIM alternate between its SIMs, a named SIM is used, status and webhooks say which, and a SIM it lacks is refused', async () => {
    const { client, hooks } = await clientWithHooks();
    const device = await dualSimPhone(client);
    // The operator tool's set-device-limits without a limit changes nothing and prints the phone.
    const shown = await system.cli('set-device-limits', '--client', client.client_id, '--device', device.device_id);
    expect(JSON.stringify(shown)).toContain('Sim Operator 2');

    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await send(client, { to: `+3361000000${i}`, message: `tour ${i}` }, device);
      expect(res.status).toBe(200);
      ids.push(String(res.body.message_id));
    }
    const named = await send(client, { to: '+33610000009', message: 'par la SIM 2', sim: 2 }, device);
    expect(named.status).toBe(200);
    const lacking = await send(client, { to: '+33610000009', message: 'SIM 3', sim: 3 }, device);
    const malformed = await send(client, { to: '+33610000009', message: 'SIM 0', sim: 0 });

    const sims: number[] = [];
    for (const id of ids) sims.push(Number((await statusWhen(client, id, (s) => s.status === 'delivered')).sim));
    expect(sims.slice().sort()).toEqual([1, 1, 2, 2]);
    expect(sims[0]).not.toBe(sims[1]);
    expect(await statusWhen(client, String(named.body.message_id), (s) => s.status === 'delivered')).toMatchObject({ sim: 2 });
    expect(lacking).toMatchObject({ status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR' } } });
    expect(JSON.stringify(lacking.body.error)).toContain('sim');
    expect(malformed).toMatchObject({ status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR' } } });

    const hooksOfNamed = await eventually(
      async () => {
        const found = receiver.received.filter((h) => h.path === hooks && h.body.data.message_id === named.body.message_id);
        return found.length >= 2 ? found : undefined;
      },
      20_000,
      'sms.sent and sms.delivered of the named SIM',
    );
    expect(hooksOfNamed.map((h) => h.body.data.sim)).toEqual([2, 2]);
  }, 120_000);

  it('when the client says its default SIM is 2, then a dual-SIM phone sends everything through SIM 2, and a limit of 1 a minute holds each SIM apart', async () => {
    const { client } = await clientWithHooks();
    await system.cli('set-fleet', '--client', client.client_id, '--sim-rule', 'default', '--default-sim', '2');
    const device = await dualSimPhone(client);
    const first = await send(client, { to: '+33620000001', message: 'défaut' }, device);
    expect(await statusWhen(client, String(first.body.message_id), (s) => s.status === 'delivered')).toMatchObject({ sim: 2 });

    const { client: limited } = await clientWithHooks();
    const phone = await dualSimPhone(limited, ['--per-minute', '1']);
    const three: string[] = [];
    for (let i = 0; i < 3; i++)
      three.push(String((await send(limited, { to: `+3362000001${i}`, message: `limité ${i}` }, phone)).body.message_id));
    // One SMS a minute on each SIM: two go out at once, one per SIM; the third waits for the next minute.
    const sent = await eventually(
      async () => {
        const states = await Promise.all(three.map(async (id) => (await system.api(`/v1/sms/status/${id}`, limited)).body));
        const out = states.filter((s) => s.status === 'sent' || s.status === 'delivered');
        return out.length >= 2 ? states : undefined;
      },
      30_000,
      'one SMS through each SIM',
      1000,
    );
    const out = sent.filter((s) => s.status === 'sent' || s.status === 'delivered');
    expect(out.map((s) => s.sim).sort()).toEqual([1, 2]);
    expect(sent.filter((s) => s.status === 'queued' || s.status === 'pending')).toHaveLength(1);
  }, 120_000);

  it('when a message asked for replies, then the recipient’s answer reaches its webhook_url and the endpoints as one event with in_reply_to', async () => {
    const { client, hooks } = await clientWithHooks('sms.received');
    const device = await dualSimPhone(client);
    const own = `/reply-${client.client_id}`;
    const asked = await send(
      client,
      { to: '+33630000001', message: 'Confirmez-vous ?', webhook_url: receiver.url(own), replies: true },
      device,
    );
    expect(asked.status).toBe(200);
    const unasked = await send(client, { to: '+33630000002', message: 'Sans réponse', webhook_url: receiver.url(own) }, device);
    const noUrl = await send(client, { to: '+33630000003', message: 'x', replies: true }, device);
    expect(noUrl).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } });
    await statusWhen(client, String(asked.body.message_id), (s) => s.status === 'delivered');
    await statusWhen(client, String(unasked.body.message_id), (s) => s.status === 'delivered');

    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33630000001', '--text', 'Oui');
    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33630000002', '--text', 'Non');

    const [reply] = await eventually(
      async () => {
        const found = receiver.received.filter((h) => h.path === own && h.body.event === 'sms.received');
        return found.length >= 1 ? found : undefined;
      },
      20_000,
      'the reply at the message URL',
    );
    expect(reply!.body.data).toMatchObject({ from: '+33630000001', message: 'Oui', in_reply_to: asked.body.message_id });
    const atEndpoint = await receiver.waitFor(hooks, 2);
    const same = atEndpoint.find((h) => h.body.data.message === 'Oui')!;
    expect(same.body.event_id).toBe(reply!.body.event_id);
    expect(atEndpoint.find((h) => h.body.data.message === 'Non')!.body.data.in_reply_to).toBeNull();
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received.filter((h) => h.path === own && h.body.event === 'sms.received')).toHaveLength(1);
  }, 120_000);

  it('when a number opts out while a message to it is scheduled, then that message fails OPTED_OUT at once with its webhook and never reaches a phone', async () => {
    const { client, hooks } = await clientWithHooks('sms.failed');
    const device = await system.createDevice(client.client_id, 'later');
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33640000001', message: 'Plus tard', scheduled_at: at },
    });
    expect(scheduled.status).toBe(200);
    const other = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33640000002', message: 'Plus tard aussi', scheduled_at: at },
    });

    const added = await system.api('/v1/opt-outs', client, { method: 'POST', body: { phone_number: '+33640000001' } });
    expect(added.status).toBe(200);

    expect(await statusWhen(client, String(scheduled.body.message_id), (s) => s.status === 'failed', 20_000)).toMatchObject({
      error: { code: 'OPTED_OUT' },
    });
    const [hook] = await receiver.waitFor(hooks, 1);
    expect(hook!.body.data).toMatchObject({ message_id: scheduled.body.message_id, error: { code: 'OPTED_OUT' } });
    expect((await system.api(`/v1/sms/status/${String(other.body.message_id)}`, client)).body).toMatchObject({
      status: 'queued',
      scheduled_at: at,
    });
  }, 60_000);
});
