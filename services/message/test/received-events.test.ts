import {
  connectNats,
  createLogger,
  ensureStream,
  EventBatchPublisher,
  newId,
  streamConfigs,
  type AgentReceived,
  type Nats,
} from '@smsgw/platform';
import { ReceivedRepository, type ReceivedRow } from '../src/data/received.repository';
import { ReceivedEventPublisher } from '../src/events/received-event.publisher';
import { ensureEventStreams, storedEvents } from './support/events';
import { RECEIVED_DURABLE, ReceivedConsumer } from '../src/events/received.consumer';
import { eventually, NATS_URL, randomHex, testDatabase } from './support/database';

const ULID_BODY = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;

describe('received SMS relayed by the hub, to records and sms.received events, through JetStream', () => {
  const log = createLogger('message-test', 'silent');
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let nats: Nats;
  let consumer: ReceivedConsumer;

  beforeAll(async () => {
    db = await testDatabase();
    nats = await connectNats({ url: NATS_URL, prefix: `t${randomHex(5)}`, name: 'message-test', log });
    const streams = streamConfigs(nats.names);
    await ensureStream(nats.jsm, streams.reports);
    await ensureEventStreams(nats);
    consumer = new ReceivedConsumer(
      nats,
      new ReceivedRepository(db.pools[0]!),
      new ReceivedEventPublisher(new EventBatchPublisher(nats, 'message')),
      log,
    );
    await consumer.start();
  });

  afterAll(async () => {
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

  const sms = (overrides: Partial<AgentReceived> = {}): AgentReceived => ({
    received_id: randomHex(8),
    device_id: `device_${randomHex()}`,
    client_id: `client_${randomHex()}`,
    mode: 'live',
    from: '+33611223344',
    text: 'Oui, je confirme le rendez-vous',
    sim: 2,
    // An hour ago: a phone may keep an SMS a while before the hub has it (30 days at most count).
    received_at: new Date(Date.now() - 3_600_000).toISOString(),
    ...overrides,
  });

  /** Publishes as the hub does (any Nats-Msg-Id) and waits until the consumer has settled it (ack or term). */
  async function relay(deviceId: string, body: unknown, msgID = `${deviceId}:${randomHex(4)}`): Promise<void> {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const ack = await nats.js.publish(nats.names.agentReceived(deviceId), payload, { msgID });
    await eventually(
      async () => {
        const info = await nats.jsm.consumers.info(nats.names.reportsStream, RECEIVED_DURABLE);
        return info.ack_floor.stream_seq >= ack.seq && info.num_ack_pending === 0;
      },
      5000,
      `received SMS ${ack.seq} to be settled`,
    );
  }

  const rows = async (deviceId: string) =>
    (await db.pools[0]!.query<ReceivedRow>('SELECT * FROM received_messages WHERE device_id = $1', [deviceId])).rows;

  const eventsOf = async (deviceId: string) => (await storedEvents(nats)).filter((e) => e.event.data.device_id === deviceId);

  it('when the hub relays a received SMS, then one record is stored and one sms.received event is published with the envelope', async () => {
    const body = sms();

    await relay(body.device_id, body);

    const [row, ...more] = await rows(body.device_id);
    expect(more).toHaveLength(0);
    expect(row).toMatchObject({
      client_id: body.client_id,
      mode: 'live',
      received_id: body.received_id,
      sim: 2,
      from_number: '+33611223344',
      body: body.text,
      received_at: new Date(body.received_at),
    });
    expect(row!.id).toMatch(/^rcv_/);
    expect(row!.id.slice(4)).toMatch(ULID_BODY);
    const published = await eventsOf(body.device_id);
    expect(published).toEqual([
      {
        subject: nats.names.event('sms.received'),
        // In a batch of the events of the moment; its id comes from the event ids it holds.
        msgId: expect.stringMatching(/^events-[0-9a-f]{32}$/),
        event: {
          event: 'sms.received',
          event_id: `evt_${row!.id.slice(4)}`,
          timestamp: body.received_at,
          data: {
            id: row!.id,
            from: '+33611223344',
            device_id: body.device_id,
            sim: 2,
            message: body.text,
            received_at: body.received_at,
            in_reply_to: null,
          },
          routing: { client_id: body.client_id, mode: 'live' },
        },
      },
    ]);
  });

  it('when the phone sends the same SMS again (a new hub publication), then there is still one record and one event with the same id', async () => {
    const body = sms();
    await relay(body.device_id, body, 'first-copy');
    const [first] = await rows(body.device_id);
    const before = await eventsOf(body.device_id);

    await relay(body.device_id, body, 'second-copy');
    await relay(body.device_id, { ...body, text: 'changed on the way', received_at: '2026-01-06T08:00:00.000Z' }, 'third-copy');

    expect(await rows(body.device_id)).toEqual([first]);
    const after = await eventsOf(body.device_id);
    expect(after).toHaveLength(1);
    expect(after).toEqual(before);
  });

  it('when the row was stored but the event never published (a crash between), then the copy publishes it from the stored row', async () => {
    const body = sms();
    const stored = await new ReceivedRepository(db.pools[0]!).store({
      id: `rcv_${newId('msg').slice(4)}`,
      clientId: body.client_id,
      mode: 'live',
      deviceId: body.device_id,
      receivedId: body.received_id,
      sim: 2,
      from: body.from,
      text: body.text,
      receivedAt: new Date(body.received_at),
    });

    await relay(body.device_id, { ...body, text: 'another copy' });

    expect(await rows(body.device_id)).toEqual([stored]);
    const published = await eventsOf(body.device_id);
    expect(published.map((e) => [e.msgId, e.event.event_id, e.event.data.id, e.event.data.message])).toEqual([
      [expect.stringMatching(/^events-[0-9a-f]{32}$/), `evt_${stored.id.slice(4)}`, stored.id, body.text],
    ]);
  });

  it('when the phone does not say its SIM, then the record has none and the event says null; test mode is routed as test', async () => {
    const { sim: _sim, ...noSim } = sms({ mode: 'test' });

    await relay(noSim.device_id, noSim);

    expect(await rows(noSim.device_id)).toEqual([expect.objectContaining({ sim: null, mode: 'test' })]);
    const [published] = await eventsOf(noSim.device_id);
    expect(published!.event.data.sim).toBeNull();
    expect(published!.event.routing).toEqual({ client_id: noSim.client_id, mode: 'test' });
  });

  it('when the phone clock is ahead, then received_at is the time of storing, not a future one', async () => {
    const body = sms({ received_at: new Date(Date.now() + 3_600_000).toISOString() });

    await relay(body.device_id, body);

    const [row] = await rows(body.device_id);
    expect(row!.received_at.getTime()).toBe(row!.created_at.getTime());
    expect(row!.received_at.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('when the phone dates an SMS years back, then it is stored as 30 days ago at most: the retention does not take it at once', async () => {
    const body = sms({ received_at: '1999-01-01T00:00:00.000Z' });

    await relay(body.device_id, body);

    const [row] = await rows(body.device_id);
    const age = row!.created_at.getTime() - row!.received_at.getTime();
    expect(age).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(age).toBeLessThanOrEqual(30 * 86_400_000 + 1000);
  });

  it('when the sender is a national number and the hub says the SIM is French, then the record and the event name it in E.164', async () => {
    const body = sms({ from: '0612345679', sim_number: '+33612000000' });

    await relay(body.device_id, body);

    expect((await rows(body.device_id))[0]!.from_number).toBe('+33612345679');
    await eventually(async () => (await eventsOf(body.device_id)).length === 1, 5000, 'the event');
    expect((await eventsOf(body.device_id))[0]!.event.data.from).toBe('+33612345679');
  });

  it('when the text holds characters Postgres cannot store, then they become U+FFFD and the SMS is kept', async () => {
    const body = sms({ text: 'a\u0000b\ud800c' });

    await relay(body.device_id, body);

    expect(await rows(body.device_id)).toEqual([expect.objectContaining({ body: 'a\ufffdb\ufffdc' })]);
  });

  it.each([
    ['not JSON', 'not json'],
    ['no received_id', { ...sms(), received_id: '' }],
    ['no client', { ...sms(), client_id: undefined }],
    ['an unknown mode', { ...sms(), mode: 'staging' }],
    ['a SIM that is not a slot', { ...sms(), sim: 0 }],
    ['an unreadable date', { ...sms(), received_at: 'yesterday' }],
    ['no text', { ...sms(), text: undefined }],
  ])('when the payload has %s, then it is dropped without a record or an event, and the next one is stored', async (_case, body) => {
    const deviceId = `device_${randomHex()}`;
    await relay(deviceId, typeof body === 'string' ? body : { ...body, device_id: deviceId });

    expect(await rows(deviceId)).toEqual([]);
    expect(await eventsOf(deviceId)).toEqual([]);
    const good = sms({ device_id: deviceId });
    await relay(deviceId, good);
    expect(await rows(deviceId)).toHaveLength(1);
  });

  it('when the event cannot be published, then the SMS is not acknowledged, and is once the events stream is back', async () => {
    const body = sms();
    // The stream stops taking the subject (publishing fails) but keeps its consumers: deleted and made
    // again, an interest stream would drop what came before its consumers were back.
    const streamName = nats.names.eventBatchesStream;
    const { config } = await nats.jsm.streams.info(streamName);
    await nats.jsm.streams.update(streamName, { ...config, subjects: [`${streamName}-paused`] });
    try {
      const ack = await nats.js.publish(nats.names.agentReceived(body.device_id), JSON.stringify(body), { msgID: randomHex() });
      await eventually(async () => (await rows(body.device_id)).length === 1, 5000, 'the record to be stored');
      const info = await nats.jsm.consumers.info(nats.names.reportsStream, RECEIVED_DURABLE);
      expect(info.ack_floor.stream_seq).toBeLessThan(ack.seq);
    } finally {
      await nats.jsm.streams.update(streamName, config);
    }

    await eventually(async () => (await eventsOf(body.device_id)).length === 1, 20_000, 'the event once the stream is back');
    const [row] = await rows(body.device_id);
    expect((await eventsOf(body.device_id))[0]!.event.event_id).toBe(`evt_${row!.id.slice(4)}`);
  });
});
