import { connectNats, createLogger, type GrpcService, type Nats } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone } from './support/phone';
import { MessageStandIn, startAccountStandIn, type StandInMessage } from './support/stand-ins';
import { lastStoredReport } from './support/reports';

/**
 * Protocol 4 against a real hub, Postgres, Redis and NATS, with gRPC stand-ins of the message
 * service (what the hub claims and accepts, recorded) and the account service (each client's SIM
 * rule): SIMs stored and listed, the SIM of each SMS (round robin, default rule, requested), limits
 * per SIM with sims_with_room, the SIM of reports, and a protocol 3 agent as before.
 */

describe('device-hub protocol 4: SIMs', () => {
  const natsPrefix = `t${randomHex(5)}`;
  const simRules = new Map<string, { simRule: string; defaultSim: number }>();
  let messages: MessageStandIn;
  let accounts: GrpcService;
  let hub: HubCluster;
  let nats: Nats;
  let seq = 0;
  const phones: Phone[] = [];

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    accounts = await startAccountStandIn(60, simRules);
    hub = await HubCluster.start(
      1,
      {
        MESSAGE_GRPC_ADDR: messages.address,
        ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts.port}`,
        DISPATCH_INTERVAL_MIN_MS: '50',
        DISPATCH_INTERVAL_MAX_MS: '100',
        DISPATCH_LEASE_MS: '4000',
        DISPATCH_SWEEP_MS: '60000',
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
    await accounts?.stop(100);
  });

  async function pairedDevice() {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'test phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    expect(paired.status).toBe(200);
    expect(paired.body.protocol).toBe(8);
    return { clientId, deviceId: created.deviceId, token: paired.body.device_token as string };
  }

  /** A phone introduced with `hello` (protocol 4 with its SIMs, or 3 without), its hello from the hub read. */
  async function connected(token: string, hello: Record<string, unknown>): Promise<Phone> {
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    phones.push(phone);
    expect(await phone.next('hello')).toMatchObject({ protocol: 8 });
    phone.send({ type: 'agent_hello', driver: 'android', ...hello });
    return phone;
  }

  const twoSims = {
    protocol: 4,
    sims: [
      { slot: 1, carrier: 'Orange', number: '+33612345678' },
      { slot: 2, carrier: 'Free' },
    ],
  };

  const sms = (clientId: string, deviceId: string, requestedSim = 0): StandInMessage => ({
    messageId: `msg_${Date.now()}${seq++}`,
    clientId,
    deviceId,
    requestedSim,
  });

  /** Acknowledges every SMS the phone gets within `ms`; returns their frames. */
  async function ackAll(phone: Phone, ms: number) {
    const got: Record<string, unknown>[] = [];
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const frame = await phone.next('sms', Math.max(1, deadline - Date.now())).catch(() => undefined);
      if (!frame) break;
      got.push(frame);
      phone.send({ type: 'ack', message_id: frame.message_id });
    }
    return got;
  }

  const sendAndAck = async (phone: Phone, clientId: string, deviceId: string, queued: StandInMessage[], ms = 2500) => {
    messages.enqueue(...queued);
    nats.nc.publish(nats.names.wake(clientId, deviceId));
    const frames = await ackAll(phone, ms);
    expect(frames.map((f) => f.message_id)).toEqual(queued.map((m) => m.messageId));
    await eventually(async () => queued.every((m) => messages.acceptedSims.has(m.messageId)), 5000, 'the acknowledgements');
    return frames;
  };

  it('when a protocol 4 phone reports its SIMs, then they are stored (bad entries left out) and listed with their usage and room', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    await connected(token, { ...twoSims, sims: [...twoSims.sims, { slot: 2, carrier: 'again' }, { slot: 12 }] });
    const expected = [
      { slot: 1, carrier: 'Orange', number: '+33612345678', usage: { lastMinute: 0, lastHour: 0, lastDay: 0 }, hasRoom: true },
      { slot: 2, carrier: 'Free', number: '', usage: { lastMinute: 0, lastHour: 0, lastDay: 0 }, hasRoom: true },
    ];
    const device = await eventually(
      async () => {
        const found = await hub.first.client.getDevice({ clientId, deviceId });
        return found.sims.length > 0 && found;
      },
      5000,
      'the SIMs stored',
    );
    expect(device.sims).toEqual(expected);
    expect((await hub.first.client.listDevices({ clientId, onlineOnly: false })).devices[0]!.sims).toEqual(expected);
    const { rows } = await hub.pool.query<{ sims: unknown }>('SELECT sims FROM devices WHERE device_id = $1', [deviceId]);
    expect(rows[0]!.sims).toEqual([
      { slot: 1, carrier: 'Orange', number: '+33612345678' },
      { slot: 2, carrier: 'Free' },
    ]);
  });

  it('when the client has the round robin rule, then SMS go through each SIM in turn, in the frame and in AcceptMessage, and every claim carries the SIMs with room', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    // A fixed pause per SIM: SIM 1 is free again before SIM 2 is.
    await hub.first.client.setDeviceLimits({ clientId, deviceId, limits: { minIntervalMs: 300, maxIntervalMs: 300 } });
    const phone = await connected(token, twoSims);
    const queued = Array.from({ length: 4 }, () => sms(clientId, deviceId));
    const frames = await sendAndAck(phone, clientId, deviceId, queued);
    expect(frames.map((f) => f.sim)).toEqual([1, 2, 1, 2]);
    expect(queued.map((m) => messages.acceptedSims.get(m.messageId))).toEqual([1, 2, 1, 2]);
    const claims = messages.claimsOf(deviceId);
    expect(claims[0]!.simsWithRoom).toEqual([1, 2]);
    for (const claim of claims) expect(claim.simsWithRoom.length).toBeGreaterThan(0);
    expect(await hub.redis.get(`hub-sent:${deviceId}:last-sim`)).toBe('2');
    expect(await hub.redis.zcard(`hub-sent:${deviceId}:sim1`)).toBe(2);
    expect(await hub.redis.zcard(`hub-sent:${deviceId}`)).toBe(4);
  });

  it('when the client has the default rule, then SMS go through default_sim (waiting out its pause), or the first slot when the phone lacks it; a requested SIM wins', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    simRules.set(clientId, { simRule: 'default', defaultSim: 2 });
    const phone = await connected(token, twoSims);
    const queued = [sms(clientId, deviceId), sms(clientId, deviceId), sms(clientId, deviceId, 1)];
    expect((await sendAndAck(phone, clientId, deviceId, queued)).map((f) => f.sim)).toEqual([2, 2, 1]);

    const other = await pairedDevice();
    simRules.set(other.clientId, { simRule: 'default', defaultSim: 3 });
    const otherPhone = await connected(other.token, twoSims);
    const frames = await sendAndAck(otherPhone, other.clientId, other.deviceId, [sms(other.clientId, other.deviceId)]);
    expect(frames[0]!.sim).toBe(1);
  });

  it('when each SIM may send 1 SMS a minute, then the phone sends 2 (one per SIM), claims name only the SIMs with room, and its device shows the usage per SIM and no room', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    await hub.first.client.setDeviceLimits({ clientId, deviceId, limits: { perMinute: 1 } });
    const phone = await connected(token, twoSims);
    messages.enqueue(sms(clientId, deviceId), sms(clientId, deviceId), sms(clientId, deviceId));
    nats.nc.publish(nats.names.wake(clientId, deviceId));
    const frames = await ackAll(phone, 2500);
    expect(frames.map((f) => f.sim)).toEqual([1, 2]);
    expect(messages.claimsOf(deviceId).map((c) => c.simsWithRoom)).toEqual([[1, 2], [2]]);
    const device = await hub.first.client.getDevice({ clientId, deviceId });
    expect(device).toMatchObject({ usage: { lastMinute: 2 }, hasRoom: false });
    expect(device.sims.map((s) => [s.slot, s.usage?.lastMinute, s.hasRoom])).toEqual([
      [1, 1, false],
      [2, 1, false],
    ]);
  });

  it('when a phone reports with a SIM, then the stored report carries it (1 to 8 only)', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await connected(token, twoSims);
    const [one, two] = [sms(clientId, deviceId), sms(clientId, deviceId)];
    await sendAndAck(phone, clientId, deviceId, [one, two]);
    const stored = async (messageId: string) =>
      eventually(
        async () => {
          const report = await lastStoredReport(nats, deviceId);
          return report?.message_id === messageId ? report : undefined;
        },
        5000,
        `the report of ${messageId}`,
      );
    phone.send({ type: 'report', message_id: one.messageId, status: 'sent', at: new Date().toISOString(), sim: 1 });
    expect(await stored(one.messageId)).toMatchObject({ status: 'sent', sim: 1 });
    phone.send({ type: 'report', message_id: two.messageId, status: 'sent', at: new Date().toISOString(), sim: 9 });
    expect(await stored(two.messageId)).not.toHaveProperty('sim');
  });

  it('when a protocol 3 agent connects, then its SIMs are unknown, its frames carry no sim nor its claims any SIM, except an SMS whose caller asked for one', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    // A protocol 3 agent sends no sims; any it sent would be ignored.
    const phone = await connected(token, { protocol: 3, sims: twoSims.sims });
    const queued = [sms(clientId, deviceId), sms(clientId, deviceId), sms(clientId, deviceId, 2)];
    const frames = await sendAndAck(phone, clientId, deviceId, queued);
    expect(frames[0]).not.toHaveProperty('sim');
    expect(frames[1]).not.toHaveProperty('sim');
    expect(frames[2]).toMatchObject({ sim: 2 });
    expect(queued.map((m) => messages.acceptedSims.get(m.messageId))).toEqual([0, 0, 2]);
    expect(messages.claimsOf(deviceId).every((c) => c.simsWithRoom.length === 0)).toBe(true);
    expect((await hub.first.client.getDevice({ clientId, deviceId })).sims).toEqual([]);
  });
});
