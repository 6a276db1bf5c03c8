import { eventually } from '@smsgw/testing';
import { HubCluster, postPair } from './support/hub';
import { Phone } from './support/phone';

const codeOf = (pairingUrl: string) => new URL(pairingUrl).searchParams.get('code')!;

describe('the automatic choice in a large fleet: ListDevices draws online phones at random (sample)', () => {
  let hub: HubCluster;
  const phones: Phone[] = [];
  let clientNumber = 0;
  const newClientId = () => `client_${Date.now()}${String(++clientNumber).padStart(4, '0')}`;

  beforeAll(async () => {
    hub = await HubCluster.start(1);
  });

  afterAll(async () => {
    for (const phone of phones) phone.ws.terminate();
    await hub?.stop();
  });

  /** `count` phones of the client, paired and connected (their hello read), by device id. */
  async function fleet(clientId: string, count: number, options: { answerPings?: boolean } = {}): Promise<Map<string, Phone>> {
    const { devices } = await hub.first.client.createDevices({ clientId, count, namePrefix: 'p', firstNumber: 1 });
    const connected = new Map<string, Phone>();
    for (const device of devices) {
      const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { pairing_code: codeOf(device.pairingUrl) });
      expect(paired.status).toBe(200);
      const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, paired.body.device_token as string, options);
      phones.push(phone);
      await phone.next('hello');
      connected.set(device.deviceId, phone);
    }
    await eventually(
      async () => (await hub.first.client.listDevices({ clientId, onlineOnly: true })).devices.length === count,
      10_000,
      `${count} phones online`,
    );
    return connected;
  }

  const drawn = async (clientId: string, sample: number) =>
    (await hub.first.client.listDevices({ clientId, onlineOnly: true, sample })).devices;

  it('when 40 phones are online, then a sample of 8 is 8 distinct online phones of the client, another draw differs, and a sample of 100 is all 40', async () => {
    const clientId = newClientId();
    const online = await fleet(clientId, 40);
    await fleet(newClientId(), 1);

    const seen = new Set<string>();
    for (let draw = 0; draw < 10; draw++) {
      const devices = await drawn(clientId, 8);
      expect(devices).toHaveLength(8);
      expect(new Set(devices.map((d) => d.deviceId)).size).toBe(8);
      for (const d of devices) {
        expect(online.has(d.deviceId)).toBe(true);
        expect(d).toMatchObject({ status: 'online', hasRoom: true });
        seen.add(d.deviceId);
      }
    }
    // Ten draws of 8 among 40 that kept to the same 8 phones would not be random.
    expect(seen.size).toBeGreaterThan(8);
    expect(new Set((await drawn(clientId, 100)).map((d) => d.deviceId))).toEqual(new Set(online.keys()));
  });

  it('when phones disconnect, lose their presence (a hub that crashed) or are removed, then they are never drawn and leave the client online set', async () => {
    const clientId = newClientId();
    // Phones that do not answer pings: no pong renews a presence during the test (the hub drops them after 50 s).
    const online = await fleet(clientId, 12, { answerPings: false });
    const [closed, expired, removed, ...kept] = [...online.keys()];
    online.get(closed!)!.ws.close();
    await online.get(closed!)!.closed();
    await hub.redis.del(`presence:${expired}`);
    await hub.first.client.removeDevice({ clientId, deviceId: removed! });

    await eventually(async () => (await drawn(clientId, 100)).length === kept.length, 10_000, 'the closed phone gone from the draw');
    expect(new Set((await drawn(clientId, 100)).map((d) => d.deviceId))).toEqual(new Set(kept));
    const members = await hub.redis.smembers(`presence-client:${clientId}`);
    expect(members).not.toContain(closed);
    expect(members).not.toContain(expired);
    expect(members).not.toContain(removed);
  });

  it('when a drawn phone has a count limit it reached, then the draw says it has no room; a phone without limits has room whatever it sent, its usage counted in the full list only', async () => {
    const clientId = newClientId();
    const [limited, free] = [...(await fleet(clientId, 2)).keys()];
    await hub.first.client.setDeviceLimits({ clientId, deviceId: limited!, limits: { perMinute: 2 } });
    const now = Date.now();
    for (const deviceId of [limited!, free!]) await hub.redis.zadd(`hub-sent:${deviceId}`, now - 2000, 'msg_a', now - 1000, 'msg_b');

    const draw = new Map((await drawn(clientId, 8)).map((d) => [d.deviceId, d]));
    expect(draw.get(limited!)).toMatchObject({ hasRoom: false, usage: { lastMinute: 2, lastHour: 2, lastDay: 2 } });
    expect(draw.get(free!)).toMatchObject({ hasRoom: true, usage: { lastMinute: 0, lastHour: 0, lastDay: 0 } });
    const full = (await hub.first.client.listDevices({ clientId, onlineOnly: true })).devices.find((d) => d.deviceId === free);
    expect(full).toMatchObject({ hasRoom: true, usage: { lastMinute: 2, lastHour: 2, lastDay: 2 } });
  });

  it('when no phone of the client is online, then the draw is empty, as the full list is', async () => {
    const clientId = newClientId();
    await hub.first.client.createDevices({ clientId, count: 3, namePrefix: 'off', firstNumber: 1 });

    expect(await drawn(clientId, 8)).toEqual([]);
    expect((await hub.first.client.listDevices({ clientId, onlineOnly: true })).devices).toEqual([]);
  });
});
