import { AppError, connectNats, createLogger, type AgentReport, type Nats } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone } from './support/phone';
import { MessageStandIn } from './support/stand-ins';
import { lastStoredReport } from './support/reports';

/**
 * The fleet side of a phone's session against real hub replicas, Postgres, Redis and NATS, with a
 * real gRPC stand-in of the message service (its queue in memory, what the hub asks recorded):
 * protocol 2, fleet claims and wake-ups, limits and hours, their reload, and not_sent reports.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe('device-hub fleet sessions: protocol 2, limits, hours and not_sent reports', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messages: MessageStandIn;
  let hub: HubCluster;
  let nats: Nats;
  let seq = 0;

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    hub = await HubCluster.start(
      1,
      {
        MESSAGE_GRPC_ADDR: messages.address,
        DISPATCH_INTERVAL_MIN_MS: '50',
        DISPATCH_INTERVAL_MAX_MS: '100',
        DISPATCH_LEASE_MS: '4000',
        // Without a wake-up or a reload order, a session waits a minute: what wakes it is what is tested.
        DISPATCH_SWEEP_MS: '60000',
        AGENT_PING_INTERVAL_MS: '500',
        PRESENCE_TTL_MS: '1500',
        HUB_LIMITS_RELOAD_MS: '500',
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

  const sms = (clientId: string, deviceId: string, expiresAt?: string) => ({
    messageId: `msg_${Date.now()}${seq++}`,
    clientId,
    deviceId,
    ...(expiresAt ? { expiresAt } : {}),
  });

  /** Acknowledges every SMS the phone gets, and returns the ids it got within `ms`. */
  async function ackAll(phone: Phone, ms: number): Promise<string[]> {
    const got: string[] = [];
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const frame = await phone.next('sms', Math.max(1, deadline - Date.now())).catch(() => undefined);
      if (!frame) break;
      got.push(frame.message_id!);
      phone.send({ type: 'ack', message_id: frame.message_id });
    }
    return got;
  }

  it('when a wake-up of a client with 20 idle phones here says one message was opened, then 8 of them claim, not all 20; a wake-up that does not say wakes all 20', async () => {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const { devices } = await hub.first.client.createDevices({ clientId, count: 20, namePrefix: 'f', firstNumber: 1 });
    const ids = devices.map((d) => d.deviceId);
    const phones: Phone[] = [];
    for (const device of devices) {
      const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { pairing_code: device.pairingCode });
      const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, paired.body.device_token as string);
      phones.push(phone);
      await phone.next('hello');
    }
    // Each one's first claim finds nothing; then each sleeps until woken (the sweep is a minute here).
    await eventually(async () => ids.every((id) => messages.claimsOf(id).length > 0), 10_000, 'every first claim');
    await sleep(500);
    let before = new Map(ids.map((id) => [id, messages.claimsOf(id).length]));
    const claimedSince = () => ids.filter((id) => messages.claimsOf(id).length > before.get(id)!).length;

    nats.nc.publish(nats.names.wakeClient(clientId), '1');
    await eventually(async () => claimedSince() >= 8, 5000, '8 phones claiming');
    await sleep(1000);
    expect(claimedSince()).toBe(8);

    before = new Map(ids.map((id) => [id, messages.claimsOf(id).length]));
    nats.nc.publish(nats.names.wakeClient(clientId));
    await eventually(async () => claimedSince() === 20, 5000, 'all 20 phones claiming');
    for (const phone of phones) phone.ws.close();
  });

  it('when a phone connects, then hello says protocol 4, its claims carry its client, a wake-up of its client wakes it, and an SMS with an expiry carries expires_at', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    expect(await phone.next('hello')).toMatchObject({ protocol: 8, device_id: deviceId });
    // Its first claim finds nothing: it then sleeps until woken.
    await eventually(async () => messages.claimsOf(deviceId).length > 0, 5000, 'the first claim');

    const expiresAt = new Date(Date.now() + 600_000).toISOString();
    const first = sms(clientId, deviceId, expiresAt);
    const second = sms(clientId, deviceId);
    messages.enqueue(first, second);
    nats.nc.publish(nats.names.wakeClient(clientId));
    const frame = await phone.next('sms', 5000);
    expect(frame).toMatchObject({ message_id: first.messageId, expires_at: expiresAt });
    phone.send({ type: 'ack', message_id: first.messageId });
    const next = await phone.next('sms', 5000);
    expect(next.message_id).toBe(second.messageId);
    expect(next).not.toHaveProperty('expires_at');
    expect(messages.claimsOf(deviceId).every((c) => c.clientId === clientId)).toBe(true);
    phone.ws.close();
  });

  it('when a phone is online, then presence-last follows its presence refreshes, and it is written again at its disconnect', async () => {
    const { deviceId, token } = await pairedDevice();
    const before = Date.now();
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await phone.next('hello');
    const lastOnline = async () => Number(await hub.redis.get(`presence-last:${deviceId}`));
    expect(await lastOnline()).toBeGreaterThanOrEqual(before);
    // Pongs every 500 ms refresh it.
    const atConnect = await lastOnline();
    await eventually(async () => (await lastOnline()) > atConnect, 3000, 'a refresh');
    await sleep(300);
    const closing = Date.now();
    phone.ws.close();
    await eventually(async () => (await lastOnline()) >= closing, 3000, 'the disconnect written');
  });

  it('when a phone connects and when it goes away, then its last_seen_at in Postgres is written within a couple of seconds', async () => {
    const { deviceId, token } = await pairedDevice();
    const lastSeen = async () => {
      const { rows } = await hub.pool.query<{ last_seen_at: Date | null }>('SELECT last_seen_at FROM devices WHERE device_id = $1', [
        deviceId,
      ]);
      return rows[0]?.last_seen_at?.getTime() ?? 0;
    };
    const connecting = Date.now();
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await phone.next('hello');
    // Postgres's clock is this machine's: a second of slack for the statement's own time.
    await eventually(async () => (await lastSeen()) >= connecting - 1000, 3000, 'last_seen_at written at the connect');
    const atConnect = await lastSeen();
    await sleep(1200);
    phone.ws.close();
    await eventually(async () => (await lastSeen()) > atConnect, 3000, 'last_seen_at written at the disconnect');
  });

  it("when a connected phone's limits change in Postgres without a reload order (a lost SetDeviceLimits), then the periodic reload applies them", async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await phone.next('hello');
    await hub.pool.query('UPDATE devices SET limit_per_minute = 1 WHERE device_id = $1', [deviceId]);
    // Reloads run every 500 ms here.
    await sleep(1500);
    messages.enqueue(...Array.from({ length: 3 }, () => sms(clientId, deviceId)));
    nats.nc.publish(nats.names.wake(clientId, deviceId));
    expect(await ackAll(phone, 2500)).toHaveLength(1);
    phone.ws.close();
  });

  it('when a phone may send 3 SMS a minute, then it gets 3, claims nothing more, its device shows the usage and no room; lifting the limit hands the rest at once', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const set = await hub.first.client.setDeviceLimits({ clientId, deviceId, limits: { perMinute: 3 } });
    expect(set.limits).toMatchObject({ perMinute: 3, perHour: 0 });
    messages.enqueue(...Array.from({ length: 5 }, () => sms(clientId, deviceId)));

    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await phone.next('hello');
    expect(await ackAll(phone, 2500)).toHaveLength(3);
    expect(messages.claimsOf(deviceId)).toHaveLength(3);
    const device = await hub.first.client.getDevice({ clientId, deviceId });
    expect(device).toMatchObject({ usage: { lastMinute: 3, lastHour: 3, lastDay: 3 }, hasRoom: false, status: 'online' });
    expect(await hub.redis.zcard(`hub-sent:${deviceId}`)).toBe(3);

    await hub.first.client.setDeviceLimits({ clientId, deviceId, limits: {} });
    expect(await ackAll(phone, 2000)).toHaveLength(2);
    phone.ws.close();
  });

  it('when the sending hours are closed, then nothing is claimed nor handed; new limits opening them reach the connected session at once', async () => {
    const { clientId, deviceId, token } = await pairedDevice();
    const now = Date.now();
    await hub.first.client.setDeviceLimits({
      clientId,
      deviceId,
      limits: { sendingHoursStart: hhmm(now + 2 * 3600_000), sendingHoursEnd: hhmm(now + 3 * 3600_000), timeZone: 'UTC' },
    });
    messages.enqueue(sms(clientId, deviceId));
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, token);
    await phone.next('hello');
    nats.nc.publish(nats.names.wake(clientId, deviceId));
    await sleep(1500);
    expect(phone.frames.filter((f) => f.type === 'sms')).toEqual([]);
    expect(messages.claimsOf(deviceId)).toEqual([]);
    expect((await hub.first.client.getDevice({ clientId, deviceId })).hasRoom).toBe(false);

    const opened = await hub.first.client.setDeviceLimits({
      clientId,
      deviceId,
      // UTC all year round, under another name.
      limits: { sendingHoursStart: hhmm(now - 3600_000), sendingHoursEnd: hhmm(now + 3600_000), timeZone: 'Atlantic/Reykjavik' },
    });
    expect(opened).toMatchObject({ hasRoom: true, limits: { timeZone: 'Atlantic/Reykjavik' } });
    // The session slept for a minute at most: only the reload order can hand it over this soon.
    expect(await phone.next('sms', 3000)).toBeDefined();
    phone.ws.close();
  });

  it("when limits are impossible or the device is not the client's, then SetDeviceLimits refuses them and stores nothing; ListDevices shows each device's limits", async () => {
    const { clientId, deviceId } = await pairedDevice();
    const refused = await hub.first.client
      .setDeviceLimits({ clientId, deviceId, limits: { perMinute: 10, perHour: 5, timeZone: 'Nowhere/Land' } })
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('VALIDATION_ERROR');
    expect((refused as AppError).details?.map((d) => d.field)).toEqual(expect.arrayContaining(['per_minute', 'time_zone']));
    await expect(hub.first.client.setDeviceLimits({ clientId: 'client_1', deviceId, limits: { perMinute: 1 } })).rejects.toMatchObject({
      code: 'INVALID_DEVICE_ID',
    });

    await hub.first.client.setDeviceLimits({ clientId, deviceId, limits: { perDay: 100, minIntervalMs: 5000, maxIntervalMs: 9000 } });
    const [listed] = (await hub.first.client.listDevices({ clientId, onlineOnly: false })).devices;
    expect(listed).toMatchObject({
      deviceId,
      limits: { perMinute: 0, perDay: 100, minIntervalMs: 5000, maxIntervalMs: 9000, sendingHoursStart: '' },
      usage: { lastMinute: 0, lastHour: 0, lastDay: 0 },
      hasRoom: true,
    });
  });

  async function storedReport(deviceId: string, messageId: string): Promise<AgentReport> {
    return eventually(
      async () => {
        const report = await lastStoredReport(nats, deviceId);
        return report?.message_id === messageId ? report : undefined;
      },
      5000,
      `the report of ${messageId}`,
    );
  }

  async function handAndFail(phone: Phone, clientId: string, deviceId: string, frame: Record<string, unknown>) {
    const one = sms(clientId, deviceId);
    messages.enqueue(one);
    nats.nc.publish(nats.names.wake(clientId, deviceId));
    expect((await phone.next('sms', 5000)).message_id).toBe(one.messageId);
    phone.send({ type: 'ack', message_id: one.messageId });
    phone.send({ type: 'report', message_id: one.messageId, status: 'failed', at: new Date().toISOString(), ...frame });
    expect(await phone.next('report_ack', 5000)).toMatchObject({ message_id: one.messageId, status: 'failed' });
    return storedReport(deviceId, one.messageId);
  }

  it('when a phone reports a failure with not_sent, then the hub relays not_sent, and adds retry_elsewhere only while another phone of the client is online', async () => {
    const a = await pairedDevice();
    const b = await pairedDevice(a.clientId);
    const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, a.token);
    await phone.next('hello');
    const radioOff = { error: { code: 'OUT_OF_NETWORK', message: 'radio off' }, not_sent: true };

    const alone = await handAndFail(phone, a.clientId, a.deviceId, radioOff);
    expect(alone).toMatchObject({ status: 'failed', not_sent: true, error: { code: 'OUT_OF_NETWORK' } });
    expect(alone).not.toHaveProperty('retry_elsewhere');

    const other = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, b.token);
    await other.next('hello');
    expect(await handAndFail(phone, a.clientId, a.deviceId, radioOff)).toMatchObject({ not_sent: true, retry_elsewhere: true });
    // A failure the phone is not sure of is relayed as before.
    const unsure = await handAndFail(phone, a.clientId, a.deviceId, { error: { code: 'DEVICE_ERROR', message: 'x' } });
    expect(unsure).not.toHaveProperty('not_sent');
    expect(unsure).not.toHaveProperty('retry_elsewhere');
    other.ws.close();
    phone.ws.close();
  });
});
