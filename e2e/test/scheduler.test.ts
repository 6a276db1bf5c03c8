import type { Subscription } from '@nats-io/transport-node';
import pg from 'pg';
import { connectNats, createClient, createLogger, type Nats, type PromiseClient } from '@smsgw/platform';
import { schedulerProto, type scheduler } from '@smsgw/proto';
import type { AgentProcess } from './support/agent';
import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** When the phone got the message (polled every 10 ms), by this process's clock. */
async function whenSent(agent: AgentProcess, messageId: string, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (agent.sentCount(messageId) === 0) {
    if (Date.now() > deadline) throw new Error(`${messageId} never reached the phone`);
    await sleep(10);
  }
  return Date.now();
}

describe('scheduled sends and durable timers, the whole system', () => {
  let system: TestSystem;
  let client: DemoClient;
  let db: pg.Client;
  let nats: Nats;
  let timers: PromiseClient<scheduler.SchedulerServiceClient>;

  beforeAll(async () => {
    system = await TestSystem.start({
      // The hub's safety-net sweep is pushed out of the tests' reach: a scheduled SMS must arrive because its timer woke the hub.
      DISPATCH_SWEEP_MS: '60000',
      // A replica killed while firing holds its timers this long.
      TIMER_LEASE_MS: '3000',
    });
    client = await system.createClient();
    db = new pg.Client({ connectionString: system.stack.databaseUrl });
    await db.connect();
    nats = await connectNats({
      url: system.stack.natsUrl,
      ...system.stack.natsAdmin,
      prefix: system.stack.natsPrefix,
      name: 'e2e',
      log: createLogger('e2e', 'silent'),
    });
    // Timers are created as the message service creates them.
    timers = createClient(schedulerProto().SchedulerService, system.stack.schedulerAddress, {
      tls: system.stack.grpcCredentials('message'),
    });
  });

  afterAll(async () => {
    timers?.close();
    await nats?.nc.drain();
    await db?.end();
    await system?.stop();
  });

  async function schedule(device: DemoDevice, at: Date, message = 'Rendez-vous demain à 9 h') {
    const res = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message, scheduled_at: at.toISOString() },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'queued', scheduled_at: at.toISOString() });
    return String(res.body.message_id);
  }

  async function timerState(messageId: string): Promise<string | undefined> {
    const { rows } = await db.query<{ state: string }>('SELECT state FROM scheduler.timers WHERE key = $1', [`msg-due:${messageId}`]);
    return rows[0]?.state;
  }

  it('when an SMS is scheduled, then the idle phone does not get it before its time and gets it within a second after; status and history show scheduled_at', async () => {
    const device = await system.createDevice(client.client_id, 'scheduled');
    const agent = await system.startAgent(client, device);
    // Let the hub finish its first claim and fall asleep.
    await sleep(500);
    const at = new Date(Date.now() + 3000);
    const id = await schedule(device, at);

    const status = await system.api(`/v1/sms/status/${id}`, client);
    expect(status.body).toMatchObject({ status: 'queued', scheduled_at: at.toISOString() });
    const history = await system.api(`/v1/sms/history?device_id=${device.device_id}`, client);
    expect(history.body.data).toEqual([expect.objectContaining({ message_id: id, scheduled_at: at.toISOString() })]);

    const got = await whenSent(agent, id);
    expect(got).toBeGreaterThanOrEqual(at.getTime());
    expect(got - at.getTime()).toBeLessThan(1000);
    await system.waitForStatus(client, id, 'delivered');
    expect(await timerState(id)).toBe('fired');
  });

  it('when a scheduled SMS is cancelled before its time, then it is never sent and its timer is cancelled', async () => {
    const device = await system.createDevice(client.client_id, 'cancelled');
    const agent = await system.startAgent(client, device);
    const at = new Date(Date.now() + 2000);
    const id = await schedule(device, at);
    expect(await timerState(id)).toBe('pending');

    const del = await system.api(`/v1/sms/${id}`, client, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ success: true, status: 'cancelled' });
    expect(await timerState(id)).toBe('cancelled');

    await sleep(at.getTime() - Date.now() + 1500);
    expect(agent.sentCount(id)).toBe(0);
    expect((await system.api(`/v1/sms/status/${id}`, client)).body.status).toBe('cancelled');
  });

  it('when the phone is offline at the scheduled time, then the SMS waits and is sent once the phone connects', async () => {
    const device = await system.createDevice(client.client_id, 'offline');
    const at = new Date(Date.now() + 1500);
    const id = await schedule(device, at);
    await sleep(at.getTime() - Date.now() + 1000);
    expect((await system.api(`/v1/sms/status/${id}`, client)).body.status).toBe('queued');
    expect(await timerState(id)).toBe('fired');

    const agent = await system.startAgent(client, device);
    await system.waitForStatus(client, id, 'delivered');
    expect(agent.sentCount(id)).toBe(1);
  });

  it('when the scheduler is SIGKILLed with timers pending, then it fires them after it restarts, each once', async () => {
    const device = await system.createDevice(client.client_id, 'restart');
    const agent = await system.startAgent(client, device);
    await sleep(500);
    // Due in 6 s: storing 300 timers must end, and the scheduler die, before it fires (on a loaded machine too).
    const at = new Date(Date.now() + 6000);
    const id = await schedule(device, at);
    const subject = nats.names.timer('e2e.restart');
    const keys = Array.from({ length: 300 }, (_, i) => `restart-${i}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys.slice(i, i + 50).map((key) => timers.createTimer({ key, fireAt: at.toISOString(), subject, payload: Buffer.from(key) })),
      );
    }

    await system.stack.services.scheduler.stop('SIGKILL');
    await sleep(at.getTime() - Date.now() + 1500);
    // Past its time, nothing woke the idle phone's hub.
    expect(agent.sentCount(id)).toBe(0);
    expect((await system.api(`/v1/sms/status/${id}`, client)).body.status).toBe('queued');

    await system.stack.services.scheduler.start();
    const restarted = Date.now();
    const got = await whenSent(agent, id);
    expect(got - restarted).toBeLessThan(3000);
    await eventually(
      async () => ((await storedOn(subject)).length === keys.length ? true : undefined),
      10_000,
      'every timer in the stream',
    );
    expect((await storedOn(subject)).sort()).toEqual([...keys].sort());
  });

  it('when two scheduler replicas share 1,000 timers due in the same few seconds, then each fires exactly once', async () => {
    const extra = await system.stack.addScheduler();
    const second = createClient(schedulerProto().SchedulerService, `127.0.0.1:${extra.spec.env.GRPC_PORT}`, {
      tls: system.stack.grpcCredentials('message'),
    });
    const subject = nats.names.timer('e2e.replicas');
    const published = new Map<string, number>();
    const sub: Subscription = nats.nc.subscribe(subject, {
      callback: (_err, msg) => {
        const key = msg.headers?.get('Smsgw-Timer-Key') ?? '';
        published.set(key, (published.get(key) ?? 0) + 1);
      },
    });
    const start = Date.now() + 4000;
    const keys = Array.from({ length: 1000 }, (_, i) => `replicas-${i}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys.slice(i, i + 50).map((key, j) =>
          (j % 2 === 0 ? timers : second).createTimer({
            key,
            fireAt: new Date(start + ((i + j) % 3000)).toISOString(),
            subject,
            payload: Buffer.from(key),
          }),
        ),
      );
    }
    await eventually(async () => ((await storedOn(subject)).length >= keys.length ? true : undefined), 20_000, 'every timer in the stream');
    await sleep(1000);
    sub.unsubscribe();
    second.close();

    // The effect: the stream holds each timer once.
    const stored = await storedOn(subject);
    expect(stored).toHaveLength(keys.length);
    expect(new Set(stored).size).toBe(keys.length);
    // And no replica published one that the other had claimed: no repeat for JetStream to drop.
    expect([...published.values()].filter((n) => n !== 1)).toEqual([]);
    expect(published.size).toBe(keys.length);
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM scheduler.timers WHERE key LIKE 'replicas-%' AND state = 'fired' AND attempts = 1`,
    );
    expect(rows[0]!.n).toBe(keys.length);
    // Both replicas took part.
    expect(extra.tail(200)).toMatch(/"fired":[1-9]/);
  });

  /** The payloads (timer keys) the timers stream holds on `subject`. */
  async function storedOn(subject: string): Promise<string[]> {
    const consumer = await nats.js.consumers.get(nats.names.timersStream, { filter_subjects: subject });
    const info = await consumer.info();
    const out: string[] = [];
    if (info.num_pending === 0) return out;
    const messages = await consumer.fetch({ max_messages: info.num_pending, expires: 5000 });
    for await (const m of messages) {
      out.push(m.string());
      if (m.info.pending === 0) break;
    }
    return out;
  }
});
