import { connectNats, createLogger, type AgentReceived, type Nats } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone, type Frame } from './support/phone';
import { MessageStandIn } from './support/stand-ins';

/**
 * The budgets on what phones send (PROTOCOL.md §3, budgets) against two real hub replicas, Redis
 * and NATS: received SMS past the phone's or its client's budget are not stored and are answered
 * `received_retry`; acks and reports past theirs are dropped, except the ack the hub waits for.
 */

const WINDOW_MS = 8000;
const RECEIVED_PER_DEVICE = 50;
const RECEIVED_PER_CLIENT = 80;
const ACKS_PER_DEVICE = 100;
const REPORTS_PER_DEVICE = 100;

describe('device-hub: budgets on the frames phones send', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messages: MessageStandIn;
  let hub: HubCluster;
  let nats: Nats;
  const phones: Phone[] = [];

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    hub = await HubCluster.start(
      2,
      {
        MESSAGE_GRPC_ADDR: messages.address,
        DISPATCH_INTERVAL_MIN_MS: '50',
        DISPATCH_INTERVAL_MAX_MS: '100',
        DISPATCH_SWEEP_MS: '300',
        DISPATCH_IDLE_SWEEP_MAX_MS: '500',
        HUB_BUDGET_WINDOW_MS: String(WINDOW_MS),
        HUB_RECEIVED_BUDGET_PER_DEVICE: String(RECEIVED_PER_DEVICE),
        HUB_RECEIVED_BUDGET_PER_CLIENT: String(RECEIVED_PER_CLIENT),
        HUB_ACK_BUDGET_PER_DEVICE: String(ACKS_PER_DEVICE),
        HUB_REPORT_BUDGET_PER_DEVICE: String(REPORTS_PER_DEVICE),
      },
      undefined,
      natsPrefix,
    );
    nats = await connectNats({
      url: NATS_URL,
      prefix: natsPrefix,
      name: 'device-hub-test',
      log: createLogger('device-hub-test', 'silent'),
    });
  }, 60_000);

  afterAll(async () => {
    for (const phone of phones) phone.ws.close();
    await nats?.nc.drain();
    await hub?.stop();
    await messages?.stop();
  });

  async function pairedDevice(clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`) {
    const created = await hub.first.client.createDevice({ clientId, name: 'test phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    expect(paired.status).toBe(200);
    return { clientId, deviceId: created.deviceId, token: paired.body.device_token as string };
  }

  async function connected(token: string, replica = 0): Promise<Phone> {
    const phone = await Phone.connect(hub.replicas[replica]!.agentUrl, hub.certs.caPem, token);
    phones.push(phone);
    expect(await phone.next('hello')).toMatchObject({ protocol: 8 });
    phone.send({ type: 'agent_hello', protocol: 5, driver: 'android', sims: [] });
    return phone;
  }

  const storedCount = async (deviceId: string) => {
    const subject = nats.names.agentReceived(deviceId);
    const info = await nats.jsm.streams.info(nats.names.reportsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  };
  const received = (n: number, text = `Bonjour ${n}`) => ({
    type: 'received',
    received_id: `r-${n}-${randomHex(4)}`,
    from: '+33612345678',
    text,
    received_at: new Date().toISOString(),
  });
  const answers = (phone: Phone, type: string) => phone.frames.filter((f) => f.type === type);
  const answered = (phone: Phone, count: number) =>
    eventually(
      async () => answers(phone, 'received_ack').length + answers(phone, 'received_retry').length >= count,
      15_000,
      `${count} answers`,
    );

  it('when a phone sends 300 received SMS in a burst, then its budget is stored and acknowledged, and the rest are answered received_retry with the time left in the window', async () => {
    const { deviceId, token } = await pairedDevice();
    const phone = await connected(token);
    const frames = Array.from({ length: 300 }, (_, n) => received(n));

    for (const frame of frames) phone.send(frame);
    await answered(phone, 300);

    const acks = answers(phone, 'received_ack');
    const retries = answers(phone, 'received_retry');
    expect(acks).toHaveLength(RECEIVED_PER_DEVICE);
    expect(retries).toHaveLength(300 - RECEIVED_PER_DEVICE);
    for (const retry of retries) {
      expect(retry.after_ms).toBeGreaterThan(0);
      expect(retry.after_ms).toBeLessThanOrEqual(WINDOW_MS + 1000);
    }
    // Every SMS is answered once, by its own id: none is left without an answer, none answered twice.
    expect(new Set([...acks, ...retries].map((f) => f.received_id))).toEqual(new Set(frames.map((f) => f.received_id)));
    expect(await storedCount(deviceId)).toBe(RECEIVED_PER_DEVICE);
  });

  it('when the window has passed, then the SMS answered received_retry are stored once sent again', async () => {
    const { deviceId, token } = await pairedDevice();
    const phone = await connected(token);
    const frames = Array.from({ length: RECEIVED_PER_DEVICE + 10 }, (_, n) => received(n));
    for (const frame of frames) phone.send(frame);
    await answered(phone, frames.length);
    const retries = answers(phone, 'received_retry');
    expect(retries).toHaveLength(10);

    await new Promise((resolve) => setTimeout(resolve, Math.max(...retries.map((r) => r.after_ms as number))));
    phone.frames.length = 0;
    for (const frame of frames.filter((f) => retries.some((r) => r.received_id === f.received_id))) phone.send(frame);
    await answered(phone, 10);

    expect(answers(phone, 'received_ack')).toHaveLength(10);
    expect(await storedCount(deviceId)).toBe(RECEIVED_PER_DEVICE + 10);
  }, 30_000);

  it("when two phones of one client send together more than the client's budget, then only the client's budget is stored, and a phone of another client is not affected", async () => {
    const first = await pairedDevice();
    const second = await pairedDevice(first.clientId);
    const other = await pairedDevice();
    const [a, b, c] = [await connected(first.token), await connected(second.token, 1), await connected(other.token)];

    for (let n = 0; n < 40; n++) a.send(received(n));
    await answered(a, 40);
    for (let n = 0; n < 60; n++) b.send(received(n));
    for (let n = 0; n < 10; n++) c.send(received(n));
    await answered(b, 60);
    await answered(c, 10);

    expect(answers(a, 'received_ack')).toHaveLength(40);
    expect(answers(b, 'received_ack')).toHaveLength(RECEIVED_PER_CLIENT - 40);
    expect(answers(c, 'received_ack')).toHaveLength(10);
    expect((await storedCount(first.deviceId)) + (await storedCount(second.deviceId))).toBe(RECEIVED_PER_CLIENT);
  });

  it('when a phone past its budget connects to another replica, then its received SMS are still deferred there', async () => {
    const { token } = await pairedDevice();
    const phone = await connected(token);
    for (let n = 0; n < RECEIVED_PER_DEVICE; n++) phone.send(received(n));
    await answered(phone, RECEIVED_PER_DEVICE);
    phone.ws.close();

    const again = await connected(token, 1);
    again.send(received(1000));

    expect(await again.next('received_retry')).toMatchObject({ type: 'received_retry' });
  });

  it('when a received SMS is long, then it weighs its parts, and a text longer than 255 parts is dropped as unreadable', async () => {
    const { deviceId, token } = await pairedDevice();
    const phone = await connected(token);
    // 255 parts of accented GSM-7 text: about 78 kB of JSON, the longest a phone can reassemble.
    const longest = received(1, 'é'.repeat(255 * 153));
    phone.send(longest);
    expect(await phone.next('received_ack')).toMatchObject({ received_id: longest.received_id });
    const stored = await nats.jsm.streams.getMessage(nats.names.reportsStream, { last_by_subj: nats.names.agentReceived(deviceId) });
    expect(stored!.json<AgentReceived>().text).toHaveLength(255 * 153);

    // The budget (50 parts) was used up by that one: the next one waits for the window.
    phone.send(received(2));
    expect(await phone.next('received_retry')).toMatchObject({ type: 'received_retry' });

    const tooLong = received(3, 'a'.repeat(255 * 153 + 1));
    phone.send(tooLong);
    expect(await phone.next('received_ack')).toMatchObject({ received_id: tooLong.received_id });
    expect(await storedCount(deviceId)).toBe(1);
  });

  it('when a phone floods acks and reports on messages it was never handed, then only its budgets reach the message service, and the ack the hub waits for still passes', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await connected(token);
    const acceptedBefore = messages.accepted.length;

    // 20 frames every 20 ms: the hub's count in Redis keeps up, so its budget passes whole.
    for (let n = 0; n < 1000; n++) {
      phone.send({ type: 'ack', message_id: `msg_flood${n}` });
      phone.send({ type: 'report', message_id: `msg_flood${n}`, status: 'sent', at: new Date().toISOString() });
      if (n % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await eventually(
      async () => answers(phone, 'report_ack').length >= REPORTS_PER_DEVICE,
      15_000,
      'the reports within the budget answered',
    );
    // The acks within the budget reach the message service in batches: the last may come later.
    const flooded = () => messages.accepted.slice(acceptedBefore).filter((id) => id.startsWith('msg_flood'));
    await eventually(async () => flooded().length >= ACKS_PER_DEVICE, 5000, 'the acks within the budget recorded');
    await new Promise((resolve) => setTimeout(resolve, 1000));

    expect(flooded().length).toBeGreaterThanOrEqual(ACKS_PER_DEVICE);
    expect(flooded().length).toBeLessThanOrEqual(ACKS_PER_DEVICE + 20);
    const reportAcks = answers(phone, 'report_ack');
    expect(reportAcks.length).toBeGreaterThanOrEqual(REPORTS_PER_DEVICE);
    expect(reportAcks.length).toBeLessThanOrEqual(REPORTS_PER_DEVICE + 20);

    // Past its ack budget, the phone is handed an SMS: its ack is the one the hub waits for.
    messages.enqueue({ messageId: `msg_handed${randomHex(4)}`, clientId, deviceId });
    const sms: Frame = await phone.next('sms');
    phone.send({ type: 'ack', message_id: sms.message_id! });
    await eventually(async () => messages.accepted.includes(sms.message_id!), 5000, 'the awaited ack recorded');
  }, 30_000);
});
