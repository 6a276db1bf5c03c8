import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient } from './support/system';

// Opt-outs (issue 24): a recipient's STOP puts its number on the client's suppression list; a
// later send to it is accepted but ends failed OPTED_OUT without reaching a phone, a bulk batch
// still sends the others, START undoes it, and the list can be edited through the API.

const OPTING_OUT = '+33644444444';
const OTHER = '+33655555555';

describe('opt-outs: the suppression list', () => {
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

  async function listed(client: DemoClient, mode: 'live' | 'test' = 'live'): Promise<Record<string, unknown>[]> {
    const res = await system.api('/v1/opt-outs', client, {}, mode);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>[];
  }

  function statusOf(client: DemoClient, id: string, wanted: string) {
    return eventually(
      async () => {
        const res = await system.api(`/v1/sms/status/${id}`, client);
        return res.body.status === wanted ? res.body : undefined;
      },
      20_000,
      `${id} ${wanted}`,
      500,
    );
  }

  it('when a recipient answers STOP, then the next send to it ends OPTED_OUT with its webhook and never reaches a phone, a bulk sends the others, and START undoes it', async () => {
    const client = await system.createClient();
    const hooks = `/${client.client_id}`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', 'sms.failed');
    const device = await system.createDevice(client.client_id, 'two-way');
    const agent = await system.startAgent(client, device);

    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', OPTING_OUT, '--text', ' Stop! ');
    await eventually(async () => ((await listed(client)).length === 1 ? true : undefined), 15_000, 'the number on the list');
    expect(await listed(client)).toEqual([expect.objectContaining({ phone_number: OPTING_OUT, source: 'keyword', keyword: 'STOP' })]);
    // A test key's list is another one.
    expect(await listed(client, 'test')).toEqual([]);

    const single = await system.api('/v1/sms/send', client, { body: { to: OPTING_OUT, message: 'Promo' } });
    expect(single.status).toBe(200);
    const failed = await statusOf(client, String(single.body.message_id), 'failed');
    expect(failed).toMatchObject({ error: { code: 'OPTED_OUT' } });
    const [hook] = await receiver.waitFor(hooks, 1);
    expect(hook!.body).toMatchObject({ event: 'sms.failed', data: { message_id: single.body.message_id, error: { code: 'OPTED_OUT' } } });

    const bulk = await system.api('/v1/sms/send-bulk', client, {
      body: { recipients: [OPTING_OUT, OTHER], message: 'Nouvelle collection' },
    });
    expect(bulk.status).toBe(200);
    const [toOptedOut, toOther] = (bulk.body.messages as { message_id: string }[]).map((m) => m.message_id);
    await statusOf(client, toOther!, 'delivered');
    expect(await statusOf(client, toOptedOut!, 'failed')).toMatchObject({ error: { code: 'OPTED_OUT' } });
    expect(agent.sentCount(toOptedOut!) + agent.sentCount(String(single.body.message_id))).toBe(0);

    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', OPTING_OUT, '--text', 'START');
    await eventually(async () => ((await listed(client)).length === 0 ? true : undefined), 15_000, 'the number off the list');
    const again = await system.api('/v1/sms/send', client, { body: { to: OPTING_OUT, message: 'Bon retour' } });
    await statusOf(client, String(again.body.message_id), 'delivered');
  }, 90_000);

  it('when a number is added and removed through the API, then the list says so, and removing it twice is 404 OPT_OUT_NOT_FOUND', async () => {
    const client = await system.createClient();
    const added = await system.api('/v1/opt-outs', client, { method: 'POST', body: { phone_number: '+33666666666' } });
    expect(added).toMatchObject({ status: 200, body: { success: true, phone_number: '+33666666666', source: 'api' } });
    expect((await listed(client)).map((o) => o.phone_number)).toEqual(['+33666666666']);
    const bad = await system.api('/v1/opt-outs', client, { method: 'POST', body: { phone_number: 'not a number' } });
    expect(bad).toMatchObject({ status: 400, body: { success: false } });

    const removed = await system.api('/v1/opt-outs/%2B33666666666', client, { method: 'DELETE' });
    expect(removed).toMatchObject({ status: 200, body: { success: true, phone_number: '+33666666666', removed: true } });
    expect(await listed(client)).toEqual([]);
    const twice = await system.api('/v1/opt-outs/%2B33666666666', client, { method: 'DELETE' });
    expect(twice).toMatchObject({ status: 404, body: { success: false, error: { code: 'OPT_OUT_NOT_FOUND' } } });
  });
});
