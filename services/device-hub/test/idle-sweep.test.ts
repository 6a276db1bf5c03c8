import { connectNats, createLogger, type Nats } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { HubCluster, NATS_URL, postPair, randomHex } from './support/hub';
import { Phone } from './support/phone';
import { MessageStandIn } from './support/stand-ins';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an idle phone does not poll the queue', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messages: MessageStandIn;
  let hub: HubCluster;
  let nats: Nats;
  let phone: Phone | undefined;

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    hub = await HubCluster.start(
      1,
      {
        MESSAGE_GRPC_ADDR: messages.address,
        DISPATCH_INTERVAL_MIN_MS: '20',
        DISPATCH_INTERVAL_MAX_MS: '20',
        DISPATCH_SWEEP_MS: '200',
        DISPATCH_IDLE_SWEEP_MAX_MS: '800',
      },
      undefined,
      natsPrefix,
    );
    nats = await connectNats({
      url: NATS_URL,
      prefix: natsPrefix,
      name: 'idle-sweep-test',
      log: createLogger('idle-sweep-test', 'silent'),
    });
  }, 60_000);

  afterAll(async () => {
    phone?.ws.close();
    await nats?.nc.drain();
    await hub?.stop();
    await messages?.stop();
  });

  it('when its queue is empty on connecting, then it waits DISPATCH_IDLE_SWEEP_MAX_MS between claims; a wake-up still takes it at once, and after work its waits start short and double', async () => {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const created = await hub.first.client.createDevice({ clientId, name: 'idle phone' });
    const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
    phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, paired.body.device_token as string);
    await phone.next('hello');
    phone.send({ type: 'agent_hello', protocol: 4, driver: 'simulator', sims: [] });
    const deviceId = created.deviceId;
    await eventually(async () => messages.claimsOf(deviceId).length > 0, 5000, 'a first claim');

    // Just connected, it starts at the longest wait: about 800 ms (± 20 %) from its first claim,
    // not 200 ms: a fleet coming back all at once does not sweep the queue every few seconds.
    const first = messages.claimsOf(deviceId).length;
    await sleep(450);
    expect(messages.claimsOf(deviceId).length).toBe(first);
    // Then 800, 800, ...: some 5 claims in 4.5 s, not 22.
    await sleep(4050);
    const idleClaims = messages.claimsOf(deviceId).length - first;
    expect(idleClaims).toBeGreaterThanOrEqual(4);
    expect(idleClaims).toBeLessThanOrEqual(7);

    // Deep in its longest wait, a wake-up hands it the new SMS at once.
    messages.enqueue({ messageId: 'msg_01JBDQE0000000000000000001', clientId, deviceId });
    const woken = Date.now();
    nats.nc.publish(nats.names.wake(clientId, deviceId));
    const sms = await phone.next('sms', 2000);
    expect(sms.message_id).toBe('msg_01JBDQE0000000000000000001');
    expect(Date.now() - woken).toBeLessThan(500);
    phone.send({ type: 'ack', message_id: sms.message_id });

    // Having had work, it is back to the short wait: a claim some 200 ms after the empty one.
    await eventually(async () => messages.accepted.includes('msg_01JBDQE0000000000000000001'), 2000, 'the ack');
    const afterWork = messages.claimsOf(deviceId).length;
    await sleep(700);
    expect(messages.claimsOf(deviceId).length - afterWork).toBeGreaterThanOrEqual(2);
  });
});

describe('the wake-ups of several phones in one message', () => {
  const natsPrefix = `t${randomHex(5)}`;
  let messages: MessageStandIn;
  let hub: HubCluster;
  let nats: Nats;
  const phones: Phone[] = [];

  beforeAll(async () => {
    messages = await MessageStandIn.start();
    hub = await HubCluster.start(
      1,
      {
        MESSAGE_GRPC_ADDR: messages.address,
        DISPATCH_INTERVAL_MIN_MS: '20',
        DISPATCH_INTERVAL_MAX_MS: '20',
        DISPATCH_IDLE_SWEEP_MAX_MS: '20000',
      },
      undefined,
      natsPrefix,
    );
    nats = await connectNats({ url: NATS_URL, prefix: natsPrefix, name: 'wake-many-test', log: createLogger('wake-many-test', 'silent') });
  }, 60_000);

  afterAll(async () => {
    for (const phone of phones) phone.ws.close();
    await nats?.nc.drain();
    await hub?.stop();
    await messages?.stop();
  });

  it('when one message names two idle phones of a client (dispatch.wake.<client>.many), then each claims at once, long before its 20 s wait ends', async () => {
    const clientId = `client_${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const devices: string[] = [];
    for (const name of ['first', 'second']) {
      const created = await hub.first.client.createDevice({ clientId, name });
      const paired = await postPair(hub.first.agentUrl, hub.certs.caPem, { client_id: clientId, device_password: created.devicePassword });
      const phone = await Phone.connect(hub.first.agentUrl, hub.certs.caPem, paired.body.device_token as string);
      await phone.next('hello');
      phone.send({ type: 'agent_hello', protocol: 4, driver: 'simulator', sims: [] });
      phones.push(phone);
      devices.push(created.deviceId);
    }
    for (const deviceId of devices) await eventually(async () => messages.claimsOf(deviceId).length > 0, 5000, 'a first claim');
    await sleep(300);

    messages.enqueue({ messageId: 'msg_01JBDQE0000000000000000011', clientId, deviceId: devices[0]! });
    messages.enqueue({ messageId: 'msg_01JBDQE0000000000000000012', clientId, deviceId: devices[1]! });
    const woken = Date.now();
    nats.nc.publish(nats.names.wakeMany(clientId), devices.join(','));
    const [first, second] = await Promise.all(phones.map((p) => p.next('sms', 3000)));
    expect(Date.now() - woken).toBeLessThan(2000);
    expect([first!.message_id, second!.message_id]).toEqual(['msg_01JBDQE0000000000000000011', 'msg_01JBDQE0000000000000000012']);
  });
});
