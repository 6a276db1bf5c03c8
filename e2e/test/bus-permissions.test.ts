import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Redis } from 'ioredis';
import { listenSubject, natsInboxPrefix, natsNames, type NatsService, type RedisService } from '@smsgw/platform';
import { TestSystem } from './support/system';

/**
 * Each service's NATS and Redis user may do only what that service does: a service taken over
 * (the dashboard faces the internet) cannot forge events, reports or other services' Redis keys.
 */
describe('one NATS and one Redis user per service', () => {
  let system: TestSystem;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    system = await TestSystem.start();
  });

  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await system?.stop();
  });

  const names = () => natsNames(system.stack.natsPrefix);

  async function natsAs(service: NatsService): Promise<NatsConnection> {
    const { user, password } = system.stack.busUsers.nats![service];
    const nc = await connect({
      servers: system.stack.natsUrl,
      user,
      pass: password,
      inboxPrefix: natsInboxPrefix(system.stack.natsPrefix, service),
    });
    open.push({ close: () => nc.close() });
    return nc;
  }

  async function redisAs(service: RedisService): Promise<Redis> {
    const { user, password } = system.stack.busUsers.redis[service];
    const url = new URL(system.stack.redisUrl);
    url.username = user;
    url.password = password;
    const redis = new Redis(url.toString(), { keyPrefix: system.stack.redisPrefix, lazyConnect: true, maxRetriesPerRequest: 0 });
    await redis.connect();
    open.push({ close: async () => redis.disconnect() });
    return redis;
  }

  /** The permission violation the server reports for what `act` does on `nc`, if any within a second. */
  async function violation(nc: NatsConnection, act: () => void): Promise<string | undefined> {
    const seen = (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'error' && /permission/i.test(String(status.error))) return String(status.error);
      }
      return undefined;
    })();
    act();
    await nc.flush();
    return Promise.race([seen, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1000))]);
  }

  /** Whether a message published on `subject` by `publish` reaches an unrestricted subscriber. */
  async function arrives(subject: string, publish: () => void): Promise<boolean> {
    const admin = await connect({
      servers: system.stack.natsUrl,
      user: system.stack.natsAdmin!.user,
      pass: system.stack.natsAdmin!.password,
    });
    open.push({ close: () => admin.close() });
    const sub = admin.subscribe(subject, { max: 1 });
    await admin.flush();
    publish();
    const got = (async () => {
      for await (const _ of sub) return true;
      return false;
    })();
    return Promise.race([got, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000))]);
  }

  it("when the dashboard's NATS user publishes events.sms.delivered, then the server refuses it and nobody receives it", async () => {
    const nc = await natsAs('dashboard');
    const subject = names().event('sms.delivered');
    let refused: string | undefined;
    const received = await arrives(subject, () => {
      void violation(nc, () => nc.publish(subject, '{"event":"sms.delivered"}')).then((v) => (refused = v));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toBe(false);
    expect(refused).toMatch(/Permissions Violation for Publish/i);
  });

  it("when the dashboard's NATS user asks JetStream for the webhook's or the message service's streams, then it is refused", async () => {
    const nc = await natsAs('dashboard');
    await expect(jetstreamManager(nc)).rejects.toThrow();
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    for (const stream of [names().eventsStream, names().reportsStream, names().timersStream]) {
      await expect(jsm.streams.info(stream)).rejects.toThrow();
    }
    await expect(jetstream(nc).consumers.get(names().eventsStream, 'webhook-events')).rejects.toThrow();
    // A fresh connection: the refusals above may still be reported on the first one.
    const subscriber = await natsAs('dashboard');
    expect(await violation(subscriber, () => subscriber.subscribe(names().event('sms.>')))).toMatch(
      /Permissions Violation for Subscription/i,
    );
  });

  it('when a service other than the device-hub (or a connection without a user) publishes an agent report, then it is refused; the device-hub may', async () => {
    const subject = names().agentReport('device_forged');
    for (const service of ['dashboard', 'message', 'webhook', 'scheduler'] as const) {
      const nc = await natsAs(service);
      expect(await violation(nc, () => nc.publish(subject, '{}'))).toMatch(/Permissions Violation for Publish/i);
    }
    // The account and otp services have no NATS user: a connection without one may do nothing.
    const anonymous = await connect({ servers: system.stack.natsUrl });
    open.push({ close: () => anonymous.close() });
    expect(await violation(anonymous, () => anonymous.publish(subject, '{}'))).toMatch(/Permissions Violation for Publish/i);
    const hub = await natsAs('device-hub');
    expect(await arrives(subject, () => hub.publish(subject, '{}'))).toBe(true);
  });

  it('when a service other than the device-hub publishes a batch of reports, or one other than the message service a batch of events, then it is refused; each owner may', async () => {
    const reports = names().reportBatch('forged');
    const events = names().eventBatch('message');
    for (const service of ['dashboard', 'message', 'webhook', 'scheduler', 'gateway'] as const) {
      const nc = await natsAs(service);
      expect(await violation(nc, () => nc.publish(reports, '{"reports":[]}'))).toMatch(/Permissions Violation for Publish/i);
    }
    for (const service of ['dashboard', 'device-hub', 'webhook', 'scheduler', 'gateway'] as const) {
      const nc = await natsAs(service);
      expect(await violation(nc, () => nc.publish(events, '{"events":[]}'))).toMatch(/Permissions Violation for Publish/i);
    }
    const hub = await natsAs('device-hub');
    expect(await arrives(reports, () => hub.publish(reports, '{"reports":[]}'))).toBe(true);
    const message = await natsAs('message');
    expect(await arrives(events, () => message.publish(events, '{"events":[]}'))).toBe(true);
  });

  it("when the gateway's NATS user publishes a delivery event or an agent report, or subscribes to the events, then each is refused and nobody receives them; it may subscribe to listen.>", async () => {
    // Its only right is GET /v1/events/listen: core NATS subscriptions to `listen.>`, nothing to publish.
    for (const subject of [names().event('sms.delivered'), names().agentReport('device_forged')]) {
      const nc = await natsAs('gateway');
      let refused: string | undefined;
      const received = await arrives(subject, () => {
        void violation(nc, () => nc.publish(subject, '{}')).then((v) => (refused = v));
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([subject, received]).toEqual([subject, false]);
      expect(refused).toMatch(/Permissions Violation for Publish/i);
    }
    const events = await natsAs('gateway');
    expect(await violation(events, () => events.subscribe(names().events))).toMatch(/Permissions Violation for Subscription/i);
    const listen = await natsAs('gateway');
    expect(await violation(listen, () => listen.subscribe(listenSubject(system.stack.natsPrefix, 'client_1', 'live')))).toBeUndefined();
  });

  it("when the dashboard's NATS user subscribes to device events, then it may (its live view)", async () => {
    const nc = await natsAs('dashboard');
    expect(await violation(nc, () => nc.subscribe(names().event('device.*')))).toBeUndefined();
  });

  it("when the dashboard's Redis user touches keys of another area, then Redis answers NOPERM", async () => {
    const redis = await redisAs('dashboard');
    await redis.set('dashboard:bus-test', '1', 'PX', 10_000);
    await expect(redis.set('gateway:session:forged', '1')).rejects.toThrow(/NOPERM/);
    await expect(redis.set('idempotency:cli_x:live:k', '{}')).rejects.toThrow(/NOPERM/);
    await expect(redis.get('presence:device_x')).rejects.toThrow(/NOPERM/);
    await expect(redis.get('pairing:address:x')).rejects.toThrow(/NOPERM/);
    await expect(redis.call('KEYS', '*')).rejects.toThrow(/NOPERM/);
    await expect(redis.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
  });

  it("when the gateway's Redis user writes a device's presence, then it is refused: it may only read it", async () => {
    const redis = await redisAs('gateway');
    expect(await redis.exists('presence:device_x')).toBe(0);
    await expect(redis.set('presence:device_x', 'forged')).rejects.toThrow(/NOPERM/);
    await expect(redis.get('dashboard:session:x')).rejects.toThrow(/NOPERM/);
  });
});
