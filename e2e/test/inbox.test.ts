import { randomUUID } from 'node:crypto';
import { eventually } from './support/http';
import { pair, rawPhone, type Frame, type RawPhone } from './support/raw-phone';
import { Receiver, type ReceivedWebhook } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// Two-way SMS, the receiving half (issue 24): an SMS a phone receives is stored once, shows in
// the inbox of its client only (and of its mode only), and reaches the client's webhooks as
// exactly one `sms.received` with a stable id, across a phone reconnect, a hub restart and a
// replay.

describe('received SMS: the inbox and sms.received', () => {
  let system: TestSystem;
  let receiver: Receiver;

  beforeAll(async () => {
    system = await TestSystem.start();
    receiver = await Receiver.start(system.stack.certs);
  });

  afterAll(async () => {
    await receiver?.stop();
    await system?.stop();
  });

  async function clientWithHooks(): Promise<{ client: DemoClient; hooks: string; device: DemoDevice }> {
    const client = await system.createClient();
    const hooks = `/${client.client_id}`;
    await system.cli('create-webhook', '--client', client.client_id, '--url', receiver.url(hooks), '--events', 'sms.received');
    const device = await system.createDevice(client.client_id, 'two-way');
    return { client, hooks, device };
  }

  const receivedHooks = (path: string, text: string): ReceivedWebhook[] =>
    receiver.received.filter((h) => h.path === path && h.body.event === 'sms.received' && h.body.data.message === text);

  async function inbox(client: DemoClient, query = '', mode: 'live' | 'test' = 'live') {
    const res = await system.api(`/v1/sms/inbox${query}`, client, {}, mode);
    expect(res.status).toBe(200);
    return res.body.data as Record<string, unknown>[];
  }

  it('when a phone receives an SMS, then it is in the inbox once, with its own id, and one signed sms.received reaches the webhook', async () => {
    const { client, hooks, device } = await clientWithHooks();
    await system.startAgent(client, device);
    const text = `Bonjour, ici ${Date.now()}`;
    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33698765432', '--text', text);

    const [hook] = await receiver.waitFor(hooks, 1);
    expect(hook!.body.data).toMatchObject({ from: '+33698765432', device_id: device.device_id, message: text });
    const id = String(hook!.body.data.id);
    expect(id).toMatch(/^rcv_/);
    const listed = await eventually(async () => {
      const found = (await inbox(client)).filter((m) => m.message === text);
      return found.length > 0 ? found : undefined;
    });
    expect(listed).toEqual([expect.objectContaining({ id, from: '+33698765432', device_id: device.device_id, message: text })]);
    const one = await system.api(`/v1/sms/inbox/${id}`, client);
    expect(one).toMatchObject({ status: 200, body: { success: true, id, message: text } });
    expect((await inbox(client, `?from=${encodeURIComponent('+33698765432')}`)).map((m) => m.id)).toEqual([id]);
    expect(await inbox(client, '?from=%2B33600000009')).toEqual([]);

    await new Promise((r) => setTimeout(r, 1500));
    expect(receivedHooks(hooks, text)).toHaveLength(1);
    const stats = await system.api('/v1/sms/stats', client);
    expect(stats.body).toMatchObject({ success: true, stats: { received: 1 } });
  });

  /** The device connected as a phone of protocol 4 spoken by hand: hello, then agent_hello. */
  async function connectPhone(token: string): Promise<RawPhone> {
    const phone = await rawPhone(system.stack.hubUrl, system.stack.certs.caPem, token);
    await phone.next('hello');
    phone.send({ type: 'agent_hello', protocol: 4, driver: 'android', sims: [{ slot: 1, carrier: 'Orange' }] });
    return phone;
  }

  /** A `received` frame as a phone writes it to its inbox once: every copy is the very same. */
  const receivedFrame = (text: string): Frame => ({
    type: 'received',
    received_id: randomUUID(),
    from: '+33644444444',
    text,
    sim: 1,
    received_at: new Date().toISOString(),
  });

  /** After a pause for any late copy: the one inbox entry and the one sms.received of `text`, with the same id. */
  async function expectOnce(client: DemoClient, hooks: string, text: string, first: ReceivedWebhook): Promise<void> {
    await new Promise((r) => setTimeout(r, 3000));
    const hooked = receivedHooks(hooks, text);
    expect(hooked.map((h) => h.body.event_id)).toEqual([first.body.event_id]);
    expect(hooked[0]!.body.data.id).toBe(first.body.data.id);
    const listed = (await inbox(client)).filter((m) => m.message === text);
    expect(listed).toEqual([expect.objectContaining({ id: first.body.data.id, from: '+33644444444', sim: 1 })]);
  }

  it('when a phone sends a received SMS, gets its received_ack, reconnects and sends the same received again (its ack lost), then the inbox shows it once with the same id and one sms.received reaches the webhook', async () => {
    const { client, hooks, device } = await clientWithHooks();
    const token = await pair(system.stack.hubUrl, system.stack.certs.caPem, client.client_id, device.device_password);
    const frame = receivedFrame(`reçu une fois ${Date.now()}`);

    const before = await connectPhone(token);
    before.send(frame);
    expect(await before.next('received_ack')).toEqual({ type: 'received_ack', received_id: frame.received_id });
    const [first] = await receiver.waitFor(hooks, 1);
    expect(first!.body.data).toMatchObject({ from: '+33644444444', device_id: device.device_id, message: frame.text, sim: 1 });
    expect(String(first!.body.data.id)).toMatch(/^rcv_/);
    await before.close();

    // The phone did not keep the ack: after the next hello it sends its inbox again, unchanged.
    const after = await connectPhone(token);
    after.send(frame);
    expect(await after.next('received_ack')).toEqual({ type: 'received_ack', received_id: frame.received_id });
    await expectOnce(client, hooks, frame.text as string, first!);
    await after.close();
  });

  it('when a phone sends the same received twice on one connection before the ack, then the inbox shows it once and one sms.received reaches the webhook', async () => {
    const { client, hooks, device } = await clientWithHooks();
    const token = await pair(system.stack.hubUrl, system.stack.certs.caPem, client.client_id, device.device_password);
    const frame = receivedFrame(`envoyé deux fois ${Date.now()}`);

    const phone = await connectPhone(token);
    phone.send(frame);
    phone.send(frame);
    expect(await phone.next('received_ack')).toEqual({ type: 'received_ack', received_id: frame.received_id });
    const [first] = await receiver.waitFor(hooks, 1);
    expect(first!.body.data).toMatchObject({ device_id: device.device_id, message: frame.text });
    await expectOnce(client, hooks, frame.text as string, first!);
    await phone.close();
  });

  it('when the hub restarts and the phone reconnects, then an SMS it received is still recorded once, and a replay sends the same event id', async () => {
    const { client, hooks, device } = await clientWithHooks();
    // A hub restart between two received SMS: the first is recorded once, the second after the phone reconnects.
    await system.startAgent(client, device);
    const before = `avant ${Date.now()}`;
    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33611111111', '--text', before);
    await receiver.waitFor(hooks, 1);
    await system.stack.restart('device-hub');
    await system.waitOnline(client, device, true, 45_000);
    const after = `après ${Date.now()}`;
    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33611111111', '--text', after);
    await receiver.waitFor(hooks, 2);
    await new Promise((r) => setTimeout(r, 1500));
    expect(receivedHooks(hooks, before)).toHaveLength(1);
    expect(receivedHooks(hooks, after)).toHaveLength(1);
    expect((await inbox(client)).map((m) => m.message)).toEqual([after, before]);

    const eventId = receivedHooks(hooks, before)[0]!.body.event_id;
    await system.cli('replay-event', '--client', client.client_id, '--event-id', eventId);
    await receiver.waitFor(hooks, 3);
    const again = receiver.received.filter((h) => h.path === hooks).at(-1)!;
    expect(again.body.event_id).toBe(eventId);
    expect(again.body.data.id).toBe(receivedHooks(hooks, before)[0]!.body.data.id);
  }, 120_000);

  it("when SMS are received by two clients, and in test mode, then each inbox shows only its own, and another client's id is 404", async () => {
    const first = await clientWithHooks();
    const second = await clientWithHooks();
    await system.startAgent(first.client, first.device);
    const text = `privé ${Date.now()}`;
    await system.cli(
      'receive-sms',
      '--client',
      first.client.client_id,
      '--device',
      first.device.device_id,
      '--from',
      '+33622222222',
      '--text',
      text,
    );
    const [hook] = await receiver.waitFor(first.hooks, 1);
    const id = String(hook!.body.data.id);

    expect(await inbox(second.client)).toEqual([]);
    expect(await system.api(`/v1/sms/inbox/${id}`, second.client)).toMatchObject({
      status: 404,
      body: { success: false, error: { code: 'RECEIVED_NOT_FOUND' } },
    });
    // The test keys see only test-mode records, and the live key never sees those.
    expect(await inbox(first.client, '', 'test')).toEqual([]);
    const testText = `test ${Date.now()}`;
    await system.cli(
      'receive-sms',
      '--client',
      first.client.client_id,
      '--device',
      first.device.device_id,
      '--from',
      '+33633333333',
      '--text',
      testText,
      '--test',
    );
    await eventually(async () => ((await inbox(first.client, '', 'test')).some((m) => m.message === testText) ? true : undefined));
    expect((await inbox(first.client)).map((m) => m.message)).toEqual([text]);
    expect(await system.api(`/v1/sms/inbox/${id}`, first.client, {}, 'test')).toMatchObject({ status: 404 });
  });
});
