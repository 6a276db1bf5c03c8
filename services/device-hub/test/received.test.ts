import { randomUUID } from 'node:crypto';
import { AppError, connectNats, createLogger, type AgentReceived, type Nats } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone } from './support/phone';
import { MessageStandIn } from './support/stand-ins';

/**
 * Protocol 3 against real hub replicas, Postgres, Redis and NATS (the message service a gRPC
 * stand-in): received SMS relayed to JetStream then acknowledged, and SimulateReceived, live
 * (through the replica holding the phone) and test.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('device-hub protocol 3: received SMS and SimulateReceived', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messages: MessageStandIn;
  let hub: HubCluster;
  let nats: Nats;
  const phones: Phone[] = [];

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    hub = await HubCluster.start(
      2,
      { MESSAGE_GRPC_ADDR: messages.address, DISPATCH_INTERVAL_MIN_MS: '50', DISPATCH_INTERVAL_MAX_MS: '100', DISPATCH_SWEEP_MS: '60000' },
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

  async function pairedDevice() {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'test phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    expect(paired.status).toBe(200);
    expect(paired.body.protocol).toBe(8);
    return { clientId, deviceId: created.deviceId, token: paired.body.device_token as string };
  }

  /** A phone on the first replica, its hello read, introduced as `driver` (protocol 2: no agent_hello). */
  async function connected(token: string, driver?: string): Promise<Phone> {
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    phones.push(phone);
    expect(await phone.next('hello')).toMatchObject({ protocol: 8 });
    if (driver) phone.send({ type: 'agent_hello', protocol: 3, driver });
    return phone;
  }

  const storedCount = async (deviceId: string) => {
    const subject = nats.names.agentReceived(deviceId);
    const info = await nats.jsm.streams.info(nats.names.reportsStream, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  };
  const lastStored = async (deviceId: string) => {
    const msg = await nats.jsm.streams.getMessage(nats.names.reportsStream, { last_by_subj: nats.names.agentReceived(deviceId) });
    return { received: msg!.json<AgentReceived>(), msgId: msg!.header?.get('Nats-Msg-Id') };
  };
  const online = (clientId: string, deviceId: string) =>
    eventually(async () => (await hub.first.client.getDevice({ clientId, deviceId })).status === 'online', 5000, 'the device online');

  it('when a protocol 3 phone sends a received frame, then it is stored once on agent.received with its msg id, then acknowledged, and a resend is stored once', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await connected(token, 'android');
    const frame = {
      type: 'received',
      received_id: 'f0b7c0de-1111-4222-8333-444455556666',
      from: '+33612345678',
      text: 'Bonjour, ça va ?',
      sim: 2,
      received_at: '2026-11-25T08:00:00+01:00',
    };
    phone.send(frame);
    expect(await phone.next('received_ack')).toEqual({ type: 'received_ack', received_id: frame.received_id });
    expect(await storedCount(deviceId)).toBe(1);
    const { received, msgId } = await lastStored(deviceId);
    expect(msgId).toBe(`${deviceId}:${frame.received_id}`);
    expect(received).toEqual({
      received_id: frame.received_id,
      device_id: deviceId,
      client_id: clientId,
      mode: 'live',
      from: '+33612345678',
      text: 'Bonjour, ça va ?',
      sim: 2,
      received_at: '2026-11-25T07:00:00.000Z',
    });

    // After a reconnect the phone sends its inbox again: JetStream drops the copy, the phone is answered.
    phone.send(frame);
    expect(await phone.next('received_ack')).toMatchObject({ received_id: frame.received_id });
    expect(await storedCount(deviceId)).toBe(1);
  });

  it("when a protocol 4 phone that knows its SIMs' numbers receives an SMS, then the SIM's number goes with it (the phone's country), and none when the phone knows none", async () => {
    const { deviceId, token } = await pairedDevice();
    const phone = await connected(token);
    phone.send({
      type: 'agent_hello',
      protocol: 4,
      driver: 'android',
      sims: [{ slot: 1 }, { slot: 2, carrier: 'Orange F', number: '+33700000002' }],
    });
    phone.send({
      type: 'received',
      received_id: randomUUID(),
      from: '0612345678',
      text: 'STOP',
      sim: 1,
      received_at: new Date().toISOString(),
    });
    await phone.next('received_ack');
    expect((await lastStored(deviceId)).received).toMatchObject({ from: '0612345678', sim: 1, sim_number: '+33700000002' });

    const other = await pairedDevice();
    const unknown = await connected(other.token, 'android');
    unknown.send({ type: 'received', received_id: randomUUID(), from: '0612345678', text: 'STOP', received_at: new Date().toISOString() });
    await unknown.next('received_ack');
    expect((await lastStored(other.deviceId)).received).not.toHaveProperty('sim_number');
  });

  it('when a received frame has no date or sim, then it is stored with now and no sim (and JSON that is no object before it is ignored)', async () => {
    const { deviceId, token } = await pairedDevice();
    const phone = await connected(token, 'android');
    for (const text of ['null', '42', '"received"']) phone.ws.send(text);
    const before = Date.now();
    phone.send({ type: 'received', received_id: 'r-1', from: 'ORANGE', text: '' });
    await phone.next('received_ack');
    const { received } = await lastStored(deviceId);
    expect(received).not.toHaveProperty('sim');
    expect(Date.parse(received.received_at)).toBeGreaterThanOrEqual(before - 1000);
  });

  it.each([
    ['a received_id with a space', { received_id: 'bad id', from: '+33612345678', text: 'x' }],
    ['a received_id over 64 characters', { received_id: 'a'.repeat(65), from: '+33612345678', text: 'x' }],
    ['no sender', { received_id: 'r-2', text: 'x' }],
    ['a sender over 32 characters', { received_id: 'r-3', from: '1'.repeat(33), text: 'x' }],
    ['a text over 39,015 characters (255 SMS parts)', { received_id: 'r-4', from: '+33612345678', text: 'x'.repeat(39_016) }],
    ['a sim of 9', { received_id: 'r-5', from: '+33612345678', text: 'x', sim: 9 }],
  ])('when a received frame has %s, then it is acknowledged and not stored', async (_what, fields) => {
    const { deviceId, token } = await pairedDevice();
    const phone = await connected(token, 'android');
    phone.send({ type: 'received', ...fields });
    expect(await phone.next('received_ack')).toEqual({ type: 'received_ack', received_id: fields.received_id });
    await sleep(200);
    expect(await storedCount(deviceId)).toBe(0);
  });

  it('when SimulateReceived live targets a simulator phone on another replica, then it gets a simulate_received frame, and the RPC answers no id', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await connected(token, 'simulator');
    // Frames are read in order: once this one is answered, the agent_hello before it is recorded.
    phone.send({ type: 'received', received_id: 'warm-up', from: '+33600000000', text: 'x' });
    await phone.next('received_ack');
    await online(clientId, deviceId);
    const answer = await hub.replicas[1]!.client.simulateReceived({
      clientId,
      deviceId,
      mode: 1,
      from: '+33611111111',
      text: 'Salut',
      sim: 2,
    });
    expect(answer.receivedId).toBe('');
    expect(await phone.next('simulate_received', 5000)).toEqual({ type: 'simulate_received', from: '+33611111111', text: 'Salut', sim: 2 });
    await hub.replicas[1]!.client.simulateReceived({ clientId, deviceId, mode: 0, from: '+33611111111', text: 'Sans SIM', sim: 0 });
    expect(await phone.next('simulate_received', 5000)).toEqual({ type: 'simulate_received', from: '+33611111111', text: 'Sans SIM' });
  });

  it('when the phone is a protocol 2 agent or not a simulator, then it gets no simulate_received, and a protocol 2 phone still sends SMS', async () => {
    const old = await pairedDevice();
    const oldPhone = await connected(old.token);
    const android = await pairedDevice();
    const androidPhone = await connected(android.token, 'android');
    androidPhone.send({ type: 'received', received_id: 'warm-up', from: '+33600000000', text: 'x' });
    await androidPhone.next('received_ack');
    for (const { clientId, deviceId } of [old, android]) {
      await online(clientId, deviceId);
      await hub.first.client.simulateReceived({ clientId, deviceId, mode: 1, from: '+33611111111', text: 'Salut', sim: 0 });
    }
    await sleep(500);
    expect(oldPhone.frames.filter((f) => f.type === 'simulate_received')).toEqual([]);
    expect(androidPhone.frames.filter((f) => f.type === 'simulate_received')).toEqual([]);

    const messageId = `msg_${Date.now()}`;
    messages.enqueue({ messageId, clientId: old.clientId, deviceId: old.deviceId });
    nats.nc.publish(nats.names.wake(old.clientId, old.deviceId));
    expect(await oldPhone.next('sms', 5000)).toMatchObject({ message_id: messageId });
    oldPhone.send({ type: 'ack', message_id: messageId });
    await eventually(async () => messages.accepted.includes(messageId), 5000, 'the acknowledgement');
  });

  it('when SimulateReceived live targets an offline device, then FAILED_PRECONDITION DEVICE_OFFLINE', async () => {
    const { clientId, deviceId } = await pairedDevice();
    const request = { clientId, deviceId, mode: 1, from: '+33611111111', text: 'Salut', sim: 0 };
    await expect(hub.first.client.simulateReceived(request)).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
  });

  it("when SimulateReceived names another client's device, then INVALID_DEVICE_ID", async () => {
    const { deviceId } = await pairedDevice();
    const request = { clientId: 'client_other', deviceId, mode: 2, from: '+33611111111', text: 'Salut', sim: 0 };
    await expect(hub.first.client.simulateReceived(request)).rejects.toMatchObject({ code: 'INVALID_DEVICE_ID' });
  });

  it('when SimulateReceived is in test mode, then the hub stores a test-mode AgentReceived with a fresh id, returned, the device offline', async () => {
    const { clientId, deviceId } = await pairedDevice();
    const answer = await hub.first.client.simulateReceived({ clientId, deviceId, mode: 2, from: '+33611111111', text: 'Test', sim: 0 });
    expect(answer.receivedId).toMatch(/^[0-9a-f-]{36}$/);
    const { received, msgId } = await lastStored(deviceId);
    expect(msgId).toBe(`${deviceId}:${answer.receivedId}`);
    expect(received).toMatchObject({
      received_id: answer.receivedId,
      device_id: deviceId,
      client_id: clientId,
      mode: 'test',
      from: '+33611111111',
      text: 'Test',
      sim: 1,
    });
    const again = await hub.first.client.simulateReceived({ clientId, deviceId, mode: 2, from: '+33611111111', text: 'Test', sim: 3 });
    expect(again.receivedId).not.toBe(answer.receivedId);
    expect(await storedCount(deviceId)).toBe(2);
    expect((await lastStored(deviceId)).received.sim).toBe(3);
  });

  it('when SimulateReceived has an impossible sender, text, sim or mode, then VALIDATION_ERROR names each field', async () => {
    const { clientId, deviceId } = await pairedDevice();
    const refused = await hub.first.client
      .simulateReceived({ clientId, deviceId, mode: 7, from: '', text: 'x'.repeat(1601), sim: 9 })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('VALIDATION_ERROR');
    expect((refused as AppError).details?.map((d) => d.field).sort()).toEqual(['from', 'mode', 'sim', 'text']);
  });
});
