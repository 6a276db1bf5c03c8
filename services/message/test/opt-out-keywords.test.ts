import { connectNats, createLogger, EventBatchPublisher, type AgentReceived, type Nats } from '@smsgw/platform';
import { OptOutRepository } from '../src/data/opt-out.repository';
import { QueueRepository } from '../src/data/queue.repository';
import { ReceivedRepository } from '../src/data/received.repository';
import { ReceivedEventPublisher } from '../src/events/received-event.publisher';
import { ReceivedConsumer } from '../src/events/received.consumer';
import { ensureEventStreams } from './support/events';
import { NATS_URL, newMessage, randomHex, testDatabase } from './support/database';

describe('opt-out keywords in received SMS: the sender added or removed, once per SMS', () => {
  const log = createLogger('message-test', 'silent');
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let nats: Nats;
  let consumer: ReceivedConsumer;
  let optOuts: OptOutRepository;

  beforeAll(async () => {
    db = await testDatabase();
    nats = await connectNats({ url: NATS_URL, prefix: `t${randomHex(5)}`, name: 'message-test', log });
    await ensureEventStreams(nats);
    optOuts = new OptOutRepository(db.pools[0]!);
    // Applied directly: the JetStream path to `apply` is the received-events test's.
    consumer = new ReceivedConsumer(
      nats,
      new ReceivedRepository(db.pools[0]!),
      new ReceivedEventPublisher(new EventBatchPublisher(nats, 'message')),
      log,
      optOuts,
    );
  });

  afterAll(async () => {
    if (nats) {
      for (const stream of [nats.names.eventsStream, nats.names.eventBatchesStream])
        await nats.jsm.streams.delete(stream).catch(() => undefined);
      await nats.nc.drain();
    }
    await db?.drop();
  });

  const client = () => `client_${randomHex()}`;
  const sms = (clientId: string, text: string, overrides: Partial<AgentReceived> = {}): AgentReceived => ({
    received_id: randomHex(8),
    device_id: 'device_kw',
    client_id: clientId,
    mode: 'live',
    from: '+33611223344',
    text,
    received_at: new Date().toISOString(),
    ...overrides,
  });
  const entries = async (clientId: string, mode: 'live' | 'test' = 'live') =>
    (await optOuts.list(clientId, mode, { page: 1, limit: 50, offset: 0 })).rows;

  it.each(['STOP', 'arrêt!', 'Stop', ' unsubscribe. '])('when the sender writes %j, then it is added with source keyword', async (text) => {
    const c = client();
    await consumer.apply(sms(c, text));
    expect(await entries(c)).toEqual([expect.objectContaining({ phone_number: '+33611223344', source: 'keyword', mode: 'live' })]);
  });

  it('when a French phone gets STOP from a number written the national way, then the list has it in E.164, so that sends to it stop', async () => {
    const c = client();
    await consumer.apply(sms(c, 'STOP', { from: '06 11 22 33 55', sim_number: '+33700000001' }));
    expect(await entries(c)).toEqual([expect.objectContaining({ phone_number: '+33611223355', source: 'keyword' })]);
    await consumer.apply(sms(c, 'START', { from: '0611223355', sim_number: '+33700000001' }));
    expect(await entries(c)).toEqual([]);
  });

  it('when STOP comes from a name, a short code, or a national number on a phone whose country is unknown, then no list changes', async () => {
    const c = client();
    for (const from of ['INFO', '36180', '0611223366', '+1', "'; DROP TABLE opt_outs; --"]) await consumer.apply(sms(c, 'STOP', { from }));
    expect(await entries(c)).toEqual([]);
  });

  it('when the sender writes STOP then START, then it is added with its keyword, then removed', async () => {
    const c = client();
    await consumer.apply(sms(c, 'arrêt!'));
    expect((await entries(c))[0]).toMatchObject({ keyword: 'ARRET' });
    await consumer.apply(sms(c, 'start'));
    expect(await entries(c)).toEqual([]);
  });

  it('when a copy of a STOP already stored arrives after a START, then nothing changes', async () => {
    const c = client();
    const stop = sms(c, 'STOP');
    await consumer.apply(stop);
    await consumer.apply(sms(c, 'START'));
    await consumer.apply(stop);
    expect(await entries(c)).toEqual([]);
  });

  it('when a text only contains a keyword, then nothing changes', async () => {
    const c = client();
    await consumer.apply(sms(c, 'Stop les promos svp'));
    await consumer.apply(sms(c, 'STOP!!'));
    expect(await entries(c)).toEqual([]);
  });

  it("when a test-mode phone receives STOP, then only the client's test list has it", async () => {
    const c = client();
    await consumer.apply(sms(c, 'STOP', { mode: 'test' }));
    expect(await entries(c, 'live')).toEqual([]);
    expect(await entries(c, 'test')).toHaveLength(1);
  });

  it('when the client set its own keywords, then they replace the defaults', async () => {
    const c = client();
    await optOuts.saveSettings(c, { optOutKeywords: ['FIN'], startKeywords: ['REPRISE'], otpIgnoresOptOut: true });
    await consumer.apply(sms(c, 'STOP'));
    expect(await entries(c)).toEqual([]);
    await consumer.apply(sms(c, 'fin.'));
    expect(await entries(c)).toHaveLength(1);
    await consumer.apply(sms(c, 'Reprise'));
    expect(await entries(c)).toEqual([]);
  });

  it('when the sms.failed of an opted-out send cannot be published, then nothing is stored (the send fails and may be retried)', async () => {
    const queue = new QueueRepository(db.pools[0]!);
    const m = { ...newMessage({ deviceId: 'device_kw', clientId: client() }), optedOut: true };
    await expect(queue.insertPlaced([m], undefined, 60, () => Promise.reject(new Error('JetStream unavailable')))).rejects.toThrow(
      'JetStream unavailable',
    );
    const { rows } = await db.pools[0]!.query('SELECT 1 FROM messages WHERE message_id = $1', [m.messageId]);
    expect(rows).toEqual([]);
  });
});
