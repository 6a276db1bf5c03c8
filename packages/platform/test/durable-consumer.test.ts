import { randomBytes } from 'node:crypto';
import { connectNats, createLogger, ensureStream, runDurableConsumer, type DurableConsumer, type Nats } from '../src';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const log = createLogger('test', 'silent');

async function eventually<T>(check: () => T | undefined | false, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error('not in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('runDurableConsumer', () => {
  const prefix = `t${randomBytes(5).toString('hex')}`;
  const stream = `${prefix.toUpperCase()}_WORK`;
  const subject = `${prefix}.work.>`;
  let nats: Nats;
  let running: DurableConsumer | undefined;

  beforeAll(async () => {
    nats = await connectNats({ url: NATS_URL, prefix, name: 'platform-test', log });
    await ensureStream(nats.jsm, { name: stream, subjects: [subject] });
  });

  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  afterAll(async () => {
    if (!nats) return;
    await nats.jsm.streams.delete(stream).catch(() => undefined);
    await nats.nc.drain();
  });

  const publish = (name: string, body: string) => nats.js.publish(`${prefix}.work.${name}`, body);

  it('when the consumer starts, then it is durable with one default policy: explicit acks, no limit on deliveries, 30 s to settle', async () => {
    running = await runDurableConsumer(nats, { stream, durable: 'defaults', filterSubject: subject, log }, async (msg) => msg.ack());

    const info = await nats.jsm.consumers.info(stream, 'defaults');
    expect(info.config).toMatchObject({ durable_name: 'defaults', max_deliver: -1, ack_wait: 30_000_000_000, filter_subject: subject });
  });

  it('when serial, then messages are handled one at a time in stream order', async () => {
    const seen: string[] = [];
    let busy = 0;
    let overlapped = false;
    running = await runDurableConsumer(nats, { stream, durable: 'serial', filterSubject: `${prefix}.work.serial`, log }, async (msg) => {
      overlapped ||= busy++ > 0;
      await new Promise((r) => setTimeout(r, 5));
      seen.push(msg.string());
      busy--;
      msg.ack();
    });

    for (let i = 0; i < 10; i++) await publish('serial', String(i));

    await eventually(() => seen.length === 10);
    expect(seen).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(overlapped).toBe(false);
  });

  it('when concurrent, then a slow message does not hold up the next, and stop() waits for the one running', async () => {
    const done: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    running = await runDurableConsumer(
      nats,
      { stream, durable: 'concurrent', filterSubject: `${prefix}.work.concurrent`, concurrency: 'concurrent', log },
      async (msg) => {
        if (msg.string() === 'slow') await slow;
        done.push(msg.string());
        msg.ack();
      },
    );

    await publish('concurrent', 'slow');
    await publish('concurrent', 'fast');
    await eventually(() => done.includes('fast'));
    const stopping = running.stop();
    running = undefined;
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toEqual(['fast']);
    release();
    await stopping;

    expect(done).toEqual(['fast', 'slow']);
  });

  it('when keyed, then messages of one key are handled in stream order while another key does not wait for them', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    running = await runDurableConsumer(
      nats,
      {
        stream,
        durable: 'keyed',
        filterSubject: `${prefix}.work.keyed`,
        concurrency: 'keyed',
        keyOf: (msg) => msg.string().split(':')[0]!,
        log,
      },
      async (msg) => {
        if (msg.string() === 'a:1') await slow;
        seen.push(msg.string());
        msg.ack();
      },
    );

    for (const body of ['a:1', 'b:1', 'a:2', 'b:2', 'a:3']) await publish('keyed', body);

    // a:1 is held: b's go on, a's wait behind it.
    await eventually(() => seen.length === 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(['b:1', 'b:2']);
    release();
    await eventually(() => seen.length === 5);
    expect(seen).toEqual(['b:1', 'b:2', 'a:1', 'a:2', 'a:3']);
  });

  it('when a handler throws, then the loop goes on and the message comes again', async () => {
    const deliveries: number[] = [];
    running = await runDurableConsumer(
      nats,
      { stream, durable: 'retry', filterSubject: `${prefix}.work.retry`, retryDelayMs: 10, log },
      async (msg) => {
        deliveries.push(msg.info.deliveryCount);
        if (msg.info.deliveryCount < 3) throw new Error('not yet');
        msg.ack();
      },
    );

    await publish('retry', 'x');

    await eventually(() => deliveries.length === 3);
    expect(deliveries).toEqual([1, 2, 3]);
  });

  it('when a handler terms a message, then it never comes again', async () => {
    const seen: string[] = [];
    running = await runDurableConsumer(
      nats,
      { stream, durable: 'term', filterSubject: `${prefix}.work.term`, ackWaitMs: 500, log },
      async (msg) => {
        seen.push(msg.string());
        if (msg.string() === 'bad') msg.term();
        else msg.ack();
      },
    );

    await publish('term', 'bad');
    await publish('term', 'good');
    await eventually(() => seen.includes('good'));
    await new Promise((r) => setTimeout(r, 800));

    expect(seen).toEqual(['bad', 'good']);
  });
});
