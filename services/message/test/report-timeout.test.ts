import { connectNats, createLogger, EventBatchPublisher, FAILURE_MESSAGES, type Nats } from '@smsgw/platform';
import { MessageRepository } from '../src/data/message.repository';
import { QueueRepository } from '../src/data/queue.repository';
import { ReportTimeoutRepository } from '../src/data/report-timeout.repository';
import { SmsEventPublisher } from '../src/events/sms-event.publisher';
import { ReportTimeoutJob } from '../src/jobs/report-timeout.job';
import { eventually, NATS_URL, newMessage, randomHex, testDatabase } from './support/database';
import { ensureEventStreams, storedEvents as streamEvents } from './support/events';
import { seed, startMessageService, type RunningService } from './support/service';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('accepted messages never reported, against Postgres and JetStream', () => {
  const log = createLogger('message-test', 'silent');
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let nats: Nats;
  let repo: MessageRepository;
  let queueRepo: QueueRepository;
  /** The job as two message-service replicas run it, each with its own pool. */
  let replicas: ReportTimeoutJob[];

  beforeAll(async () => {
    db = await testDatabase(2);
    repo = new MessageRepository(db.pools[0]!);
    queueRepo = new QueueRepository(db.pools[0]!);
    nats = await connectNats({ url: NATS_URL, prefix: `t${randomHex(5)}`, name: 'message-test', log });
    await ensureEventStreams(nats);
    replicas = db.pools.map(
      (pool) =>
        new ReportTimeoutJob(
          new ReportTimeoutRepository(pool),
          new SmsEventPublisher(new EventBatchPublisher(nats, 'message')),
          { timeoutMs: HOUR, intervalMs: 0 },
          log,
        ),
    );
  });

  afterAll(async () => {
    try {
      if (nats) {
        for (const stream of [nats.names.eventsStream, nats.names.eventBatchesStream])
          await nats.jsm.streams.delete(stream).catch(() => undefined);
        await nats.nc.drain();
      }
    } finally {
      await db?.drop();
    }
  });

  const device = () => `device_${randomHex()}`;
  const eventsFor = async (messageId: string) => (await streamEvents(nats)).filter((e) => e.event.data.message_id === messageId);

  /** Messages of one device, accepted by its phone `ago` ms before now. */
  async function accepted(count: number, ago: number): Promise<string[]> {
    const deviceId = device();
    const rows = await queueRepo.insert(Array.from({ length: count }, () => newMessage({ deviceId })));
    const at = new Date(Date.now() - ago);
    // Queued then, as a message a phone acknowledged then was.
    await db.pools[0]!.query('UPDATE messages SET queued_at = $2 WHERE message_id = ANY($1)', [rows.map((r) => r.message_id), at]);
    for (const row of rows) await repo.markAccepted(row.message_id, deviceId, at);
    return rows.map((r) => r.message_id);
  }

  it('when a phone accepted a message and never reported it, then after the bound it ends failed EXPIRED with one sms.failed event', async () => {
    const [lost] = await accepted(1, 2 * HOUR);
    const [recent] = await accepted(1, 30 * MINUTE);
    const acceptedAt = (await repo.findById(lost!))!.accepted_at!;

    await replicas[0]!.runOnce();

    const failedAt = new Date(acceptedAt.getTime() + HOUR);
    expect(await repo.findById(lost!)).toMatchObject({
      status: 'failed',
      error_code: 'EXPIRED',
      error_message: FAILURE_MESSAGES.EXPIRED,
      failed_at: failedAt,
    });
    const published = await eventsFor(lost!);
    expect(published).toHaveLength(1);
    expect(published[0]!.subject).toBe(nats.names.event('sms.failed'));
    // In a batch of the events of the moment: the same events published again are the same message to JetStream.
    expect(published[0]!.msgId).toMatch(/^events-[0-9a-f]{32}$/);
    expect(published[0]!.event).toMatchObject({
      event: 'sms.failed',
      timestamp: failedAt.toISOString(),
      data: {
        message_id: lost,
        status: 'failed',
        failed_at: failedAt.toISOString(),
        error: { code: 'EXPIRED', message: FAILURE_MESSAGES.EXPIRED },
      },
    });
    expect(await repo.findById(recent!)).toMatchObject({ status: 'queued', error_code: null });
    expect(await eventsFor(recent!)).toEqual([]);
  });

  it('when the phone reported in time, or never accepted the message, then the job leaves it and publishes nothing', async () => {
    const [sent, delivered, failed] = await accepted(3, 2 * HOUR);
    const deviceOf = async (id: string) => (await repo.findById(id))!.device_id;
    const at = new Date(Date.now() - 90 * MINUTE);
    await repo.applyReport(sent!, await deviceOf(sent!), 'sent', at);
    await repo.applyReport(delivered!, await deviceOf(delivered!), 'delivered', at);
    await repo.applyReport(failed!, await deviceOf(failed!), 'failed', at, {
      code: 'OUT_OF_NETWORK',
      message: FAILURE_MESSAGES.OUT_OF_NETWORK,
    });
    const [waiting] = await queueRepo.insert([newMessage({ deviceId: device() })]);
    await db.pools[0]!.query(`UPDATE messages SET created_at = now() - interval '3 days' WHERE message_id = $1`, [waiting!.message_id]);

    await replicas[0]!.runOnce();

    expect(await repo.findById(sent!)).toMatchObject({ status: 'sent', error_code: null });
    expect(await repo.findById(delivered!)).toMatchObject({ status: 'delivered', error_code: null });
    expect(await repo.findById(failed!)).toMatchObject({ status: 'failed', error_code: 'OUT_OF_NETWORK' });
    expect(await repo.findById(waiting!.message_id)).toMatchObject({ status: 'queued', accepted_at: null });
    for (const id of [sent!, delivered!, failed!, waiting!.message_id]) expect(await eventsFor(id)).toEqual([]);
  });

  it('when the job runs on two replicas at once and then again, then each message fails once with one event', async () => {
    const ids = await accepted(250, 2 * HOUR);

    const counts = await Promise.all(replicas.map((job) => job.runOnce()));
    const again = await Promise.all(replicas.map((job) => job.runOnce()));

    expect(counts[0]! + counts[1]!).toBe(250);
    expect(again).toEqual([0, 0]);
    const { rows } = await db.pools[0]!.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE message_id = ANY($1) AND status = 'failed' AND error_code = 'EXPIRED'`,
      [ids],
    );
    expect(rows[0]!.n).toBe(250);
    const perMessage = new Map<string, number>();
    for (const e of await streamEvents(nats)) {
      const id = String(e.event.data.message_id);
      if (ids.includes(id)) perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
    }
    expect(perMessage.size).toBe(250);
    expect([...perMessage.values()].every((n) => n === 1)).toBe(true);
  });

  it('when a publication fails, then nothing changes, and the next run publishes the same event once', async () => {
    const [id] = await accepted(1, 2 * HOUR);
    const broken = new ReportTimeoutRepository(db.pools[1]!);

    await expect(broken.expireUnreported(HOUR, 10, () => Promise.reject(new Error('JetStream unavailable')))).rejects.toThrow(
      'JetStream unavailable',
    );
    expect(await repo.findById(id!)).toMatchObject({ status: 'queued' });

    // A first publication went through before the failure: the retry's event has the same id.
    const publisher = new SmsEventPublisher(new EventBatchPublisher(nats, 'message'));
    await expect(
      broken.expireUnreported(HOUR, 10, async (rows) => {
        await Promise.all(rows.map((r) => publisher.publish(r)));
        throw new Error('commit lost');
      }),
    ).rejects.toThrow('commit lost');
    await replicas[0]!.runOnce();

    expect(await repo.findById(id!)).toMatchObject({ status: 'failed', error_code: 'EXPIRED' });
    expect(await eventsFor(id!)).toHaveLength(1);
  });
});

describe('the periodic report timeout of the service', () => {
  let svc: RunningService;
  let nats: Nats;

  beforeAll(async () => {
    svc = await startMessageService({ ACCEPTED_REPORT_TIMEOUT_MS: '1000', ACCEPTED_REPORT_SWEEP_INTERVAL_MS: '100' });
    nats = await connectNats({ url: NATS_URL, prefix: svc.natsPrefix, name: 'message-test', log: createLogger('message-test', 'silent') });
  });

  afterAll(async () => {
    await nats?.nc.drain();
    await svc?.stop();
  });

  it('when a phone acknowledges a message and reports nothing more, then the service ends it failed EXPIRED on its own', async () => {
    const client = `client_${Date.now()}7`;
    const deviceId = `device_${randomHex()}`;
    const [message] = await seed(svc, [{ clientId: client, deviceId, createdAt: new Date() }]);
    const report = { message_id: message!.messageId, device_id: deviceId, status: 'accepted', at: new Date().toISOString() };
    await nats.js.publish(nats.names.agentReport(deviceId), JSON.stringify(report), { msgID: `rep_${randomHex()}` });

    const seen = await eventually(
      async () => {
        const m = await svc.client.getMessage({ clientId: client, messageId: message!.messageId, mode: 'MODE_LIVE' });
        return m.status === 'failed' ? m : undefined;
      },
      10_000,
      'the accepted message to expire',
    );

    expect(seen).toMatchObject({ errorCode: 'EXPIRED', errorMessage: FAILURE_MESSAGES.EXPIRED });
    const events = (await streamEvents(nats)).filter((e) => e.event.data.message_id === message!.messageId);
    expect(events.map((e) => e.event.event)).toEqual(['sms.failed']);
  });
});
