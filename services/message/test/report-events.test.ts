import { connectNats, createLogger, ensureStream, EventBatchPublisher, streamConfigs, type AgentReport, type Nats } from '@smsgw/platform';
import { FleetRepository } from '../src/data/fleet.repository';
import { MessageRepository } from '../src/data/message.repository';
import { QueueRepository } from '../src/data/queue.repository';
import { ReportConsumer } from '../src/events/report.consumer';
import { SmsEventPublisher } from '../src/events/sms-event.publisher';
import { WakeUpPublisher } from '../src/events/wake-up.publisher';
import { ensureEventStreams, storedEvents } from './support/events';
import { eventually, NATS_URL, newMessage, randomHex, testDatabase } from './support/database';

const ULID_BODY = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;

describe('agent reports to public events, through JetStream', () => {
  const log = createLogger('message-test', 'silent');
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let nats: Nats;
  let repo: MessageRepository;
  let queueRepo: QueueRepository;
  let consumer: ReportConsumer;

  beforeAll(async () => {
    db = await testDatabase();
    repo = new MessageRepository(db.pools[0]!);
    queueRepo = new QueueRepository(db.pools[0]!);
    nats = await connectNats({ url: NATS_URL, prefix: `t${randomHex(5)}`, name: 'message-test', log });
    const streams = streamConfigs(nats.names);
    await ensureStream(nats.jsm, streams.reports);
    await ensureEventStreams(nats);
    const events = new SmsEventPublisher(new EventBatchPublisher(nats, 'message'));
    consumer = new ReportConsumer(
      nats,
      { messages: repo, fleet: new FleetRepository(db.pools[0]!), events, wakeUps: new WakeUpPublisher(nats), log },
      log,
    );
    await consumer.start();
  });

  afterAll(async () => {
    // Clean up even when the consumer failed, so no stream or schema is left behind.
    try {
      await consumer?.stop();
    } finally {
      if (nats) {
        for (const stream of [nats.names.reportsStream, nats.names.eventsStream, nats.names.eventBatchesStream])
          await nats.jsm.streams.delete(stream).catch(() => undefined);
        await nats.nc.drain();
      }
      await db?.drop();
    }
  });

  const device = () => `device_${randomHex()}`;

  /** Publishes a report as the device-hub does, and waits until the message service has acknowledged it. */
  async function report(
    body: AgentReport | { device_id: string; [field: string]: unknown },
    msgID = `rep_${randomHex()}`,
  ): Promise<{ duplicate: boolean }> {
    const ack = await nats.js.publish(nats.names.agentReport(body.device_id), JSON.stringify(body), { msgID });
    await eventually(
      async () => {
        const info = await nats.jsm.consumers.info(nats.names.reportsStream, 'message-reports');
        return info.ack_floor.stream_seq >= ack.seq && info.num_ack_pending === 0;
      },
      5000,
      `report ${ack.seq} to be acknowledged`,
    );
    return { duplicate: ack.duplicate };
  }

  const eventsFor = async (messageId: string) => (await storedEvents(nats)).filter((e) => e.event.data.message_id === messageId);

  it('when a phone reports a message sent, then the message is sent and one sms.sent event is published with the webhook envelope', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([
      newMessage({ deviceId, to: '+33612345678', metadata: { order: 'A-42' }, webhookUrl: 'https://hooks.example.com/sms' }),
    ]);
    const at = '2030-05-06T07:08:09.123Z';

    await report({ message_id: queued!.message_id, device_id: deviceId, status: 'sent', at });

    expect(await repo.findById(queued!.message_id)).toMatchObject({ status: 'sent', sent_at: new Date(at) });
    const published = await eventsFor(queued!.message_id);
    expect(published).toHaveLength(1);
    const [{ subject, msgId, event }] = published as [(typeof published)[number]];
    expect(subject).toBe(nats.names.event('sms.sent'));
    expect(event).toEqual({
      event: 'sms.sent',
      event_id: expect.stringMatching(/^evt_/),
      timestamp: at,
      data: { message_id: queued!.message_id, status: 'sent', to: '+33612345678', sim: null, sent_at: at, metadata: { order: 'A-42' } },
      routing: { client_id: queued!.client_id, mode: 'live', webhook_url: 'https://hooks.example.com/sms' },
    });
    expect(event.event_id.slice(4)).toMatch(ULID_BODY);
    // Published in a batch named after the report it came from: the report applied again publishes nothing twice.
    expect(msgId).toMatch(/^events-of-report-\d+$/);
  });

  it('when the same report is published again, with a new or the same Nats-Msg-Id, then exactly one event stays in the stream', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);
    const sent: AgentReport = { message_id: queued!.message_id, device_id: deviceId, status: 'sent', at: '2030-05-06T07:08:10.000Z' };

    await report(sent, 'hub-attempt-1');
    const first = await eventsFor(queued!.message_id);
    await report(sent, 'hub-attempt-2');
    expect(await report(sent, 'hub-attempt-2')).toEqual({ duplicate: true });
    await report({ ...sent, at: '2030-05-06T07:08:11.000Z' }, 'hub-attempt-3');

    const after = await eventsFor(queued!.message_id);
    expect(after).toHaveLength(1);
    expect(after).toEqual(first);
    expect(await repo.findById(queued!.message_id)).toMatchObject({ status: 'sent', sent_at: new Date(sent.at) });
  });

  it('when delivered follows sent, then a second event sms.delivered is published with both times', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);
    const id = queued!.message_id;

    await report({ message_id: id, device_id: deviceId, status: 'sent', at: '2030-05-06T07:00:00.000Z' });
    await report({ message_id: id, device_id: deviceId, status: 'delivered', at: '2030-05-06T07:00:04.000Z' });

    const published = await eventsFor(id);
    expect(published.map((e) => e.event.event)).toEqual(['sms.sent', 'sms.delivered']);
    expect(published[1]!.event.data).toMatchObject({
      status: 'delivered',
      sent_at: '2030-05-06T07:00:00.000Z',
      delivered_at: '2030-05-06T07:00:04.000Z',
    });
    expect(published[0]!.event.event_id).not.toBe(published[1]!.event.event_id);
  });

  it('when the delivered report overtakes the sent report (a redelivery after a crash), then sms.sent is still published once, after sms.delivered', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);
    const id = queued!.message_id;

    await report({ message_id: id, device_id: deviceId, status: 'delivered', at: '2030-05-06T07:00:04.000Z' });
    await report({ message_id: id, device_id: deviceId, status: 'sent', at: '2030-05-06T07:00:00.000Z' });
    await report({ message_id: id, device_id: deviceId, status: 'sent', at: '2030-05-06T07:00:00.000Z' }, 'hub-attempt-2');

    const published = await eventsFor(id);
    expect(published.map((e) => e.event.event)).toEqual(['sms.delivered', 'sms.sent']);
    expect(published[1]!.event.data).toMatchObject({ message_id: id, status: 'sent', sent_at: '2030-05-06T07:00:04.000Z' });
    expect(await repo.findById(id)).toMatchObject({ status: 'delivered' });
  });

  it('when a phone reports a failure, then sms.failed carries the failure code and its French sentence', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId, to: '+33600000001' })]);

    await report({
      message_id: queued!.message_id,
      device_id: deviceId,
      status: 'failed',
      at: '2030-05-06T07:00:00.000Z',
      error: { code: 'INVALID_NUMBER', message: 'whatever the phone said' },
    });

    expect(await repo.findById(queued!.message_id)).toMatchObject({ status: 'failed', error_code: 'INVALID_NUMBER' });
    const [failed] = await eventsFor(queued!.message_id);
    expect(failed?.event).toMatchObject({
      event: 'sms.failed',
      data: {
        status: 'failed',
        to: '+33600000001',
        failed_at: '2030-05-06T07:00:00.000Z',
        error: { code: 'INVALID_NUMBER', message: 'Numéro de destinataire invalide.' },
      },
    });
  });

  it('when a report comes from another device, then the message does not move and no event is published', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);

    await report({ message_id: queued!.message_id, device_id: device(), status: 'sent', at: '2030-05-06T07:00:00.000Z' });

    expect((await repo.findById(queued!.message_id))?.status).toBe('queued');
    expect(await eventsFor(queued!.message_id)).toEqual([]);
  });

  it("when another device reports failed, delivered or accepted on a message its owner reported sent, then it stays sent with the owner's one event", async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);
    await report({ message_id: queued!.message_id, device_id: deviceId, status: 'sent', at: '2030-05-06T07:00:00.000Z' });
    const before = await eventsFor(queued!.message_id);
    expect(before).toHaveLength(1);

    const other = device();
    await report({
      message_id: queued!.message_id,
      device_id: other,
      status: 'failed',
      at: '2030-05-06T07:01:00.000Z',
      error: { code: 'DEVICE_ERROR', message: 'x' },
    });
    await report({ message_id: queued!.message_id, device_id: other, status: 'delivered', at: '2030-05-06T07:02:00.000Z' });
    await report({ message_id: queued!.message_id, device_id: other, status: 'accepted', at: '2030-05-06T07:03:00.000Z' });

    expect(await repo.findById(queued!.message_id)).toMatchObject({ status: 'sent', error_code: null, delivered_at: null });
    expect(await eventsFor(queued!.message_id)).toEqual(before);
  });

  it('when the phone reports accepted, then the message stays queued, is not offered again, and no event is published', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);

    await report({ message_id: queued!.message_id, device_id: deviceId, status: 'accepted', at: '2030-05-06T07:00:00.000Z' });

    expect(await repo.findById(queued!.message_id)).toMatchObject({ status: 'queued', accepted_at: new Date('2030-05-06T07:00:00.000Z') });
    expect(await queueRepo.claimNext(deviceId, 1000)).toBeUndefined();
    expect(await eventsFor(queued!.message_id)).toEqual([]);
  });

  it('when a malformed report arrives, then it is dropped and the next reports are still applied', async () => {
    const deviceId = device();
    const [queued] = await queueRepo.insert([newMessage({ deviceId })]);

    await report({ message_id: queued!.message_id, device_id: deviceId, status: 'exploded', at: 'yesterday' });
    await report({ message_id: queued!.message_id, device_id: deviceId, status: 'sent', at: '2030-05-06T07:00:00.000Z' });

    expect((await repo.findById(queued!.message_id))?.status).toBe('sent');
    expect(await eventsFor(queued!.message_id)).toHaveLength(1);
  });
});
