import { connectNats, createLogger, EventBatchPublisher, type AgentReceived, type Nats, type PublicEvent } from '@smsgw/platform';
import { QueueRepository } from '../src/data/queue.repository';
import { ReceivedRepository } from '../src/data/received.repository';
import { ReceivedEventPublisher } from '../src/events/received-event.publisher';
import { ReceivedConsumer } from '../src/events/received.consumer';
import { ensureEventStreams, storedEvents } from './support/events';
import { NATS_URL, newMessage, randomHex, testDatabase } from './support/database';

describe('replies: an SMS from the number of a message that asked for them goes to its webhook_url, naming it', () => {
  const log = createLogger('message-test', 'silent');
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let nats: Nats;
  let consumer: ReceivedConsumer;
  let queue: QueueRepository;

  beforeAll(async () => {
    db = await testDatabase();
    nats = await connectNats({ url: NATS_URL, prefix: `t${randomHex(5)}`, name: 'message-test', log });
    await ensureEventStreams(nats);
    queue = new QueueRepository(db.pools[0]!);
    consumer = new ReceivedConsumer(
      nats,
      new ReceivedRepository(db.pools[0]!),
      new ReceivedEventPublisher(new EventBatchPublisher(nats, 'message')),
      log,
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

  const FROM = '+33611223344';
  const sms = (clientId: string, overrides: Partial<AgentReceived> = {}): AgentReceived => ({
    received_id: randomHex(8),
    device_id: 'device_replies',
    client_id: clientId,
    mode: 'live',
    from: FROM,
    text: 'Oui, merci',
    received_at: new Date().toISOString(),
    ...overrides,
  });

  /** Queues a message to FROM, then moves its queueing `hoursAgo` back. */
  async function queued(clientId: string, hoursAgo: number, fields: Parameters<typeof newMessage>[0]): Promise<string> {
    const [row] = await queue.insert([newMessage({ clientId, to: FROM, ...fields })]);
    await db.pools[0]!.query(
      `UPDATE messages SET queued_at = now() - make_interval(secs => $2::double precision * 3600) WHERE message_id = $1`,
      [row!.message_id, hoursAgo],
    );
    return row!.message_id;
  }

  async function eventOf(recordId: string): Promise<PublicEvent> {
    const found = (await storedEvents(nats)).filter((e) => e.event.data.id === recordId).map((e) => e.event);
    expect(found).toHaveLength(1);
    return found[0]!;
  }

  it('when the sender is the number of the newest message with replies queued in the last 24 h, then the one sms.received names it and carries its webhook_url', async () => {
    const client = `client_${randomHex()}`;
    const hook = 'https://example.com/replies';
    await queued(client, 3, { deviceId: 'device_a', replies: true, webhookUrl: 'https://example.com/older' });
    const newest = await queued(client, 1, { deviceId: 'device_a', replies: true, webhookUrl: hook });
    // Newer, but without replies, or to another number: not the one answered.
    await queued(client, 0.5, { deviceId: 'device_a', webhookUrl: 'https://example.com/no-replies' });
    const [other] = await queue.insert([
      newMessage({ clientId: client, deviceId: 'device_a', to: '+33699999999', replies: true, webhookUrl: hook }),
    ]);
    expect(other).toBeDefined();

    const body = sms(client);
    const row = await consumer.apply(body);
    const event = await eventOf(row.id);
    expect(event.event_id).toBe(`evt_${row.id.slice(4)}`);
    expect(event.data).toMatchObject({ id: row.id, from: FROM, in_reply_to: newest });
    expect(event.routing).toEqual({ client_id: client, mode: 'live', webhook_url: hook });

    // A copy of the same SMS publishes the same event (dropped as a copy by the stream).
    await consumer.apply(body);
    expect((await eventOf(row.id)).data.in_reply_to).toBe(newest);
  });

  it('when the message is older than 24 h, of another mode or client, or the sender is another number, then in_reply_to is null and no webhook_url', async () => {
    const client = `client_${randomHex()}`;
    const hook = 'https://example.com/replies';
    await queued(client, 25, { deviceId: 'device_a', replies: true, webhookUrl: hook });
    await queued(client, 1, { deviceId: 'device_a', mode: 'test', replies: true, webhookUrl: hook });
    await queued(`client_${randomHex()}`, 1, { deviceId: 'device_a', replies: true, webhookUrl: hook });

    for (const body of [sms(client), sms(client, { from: '+33600000000' })]) {
      const row = await consumer.apply(body);
      const event = await eventOf(row.id);
      expect(event.data.in_reply_to).toBeNull();
      expect(event.routing).toEqual({ client_id: client, mode: 'live' });
    }
    // In test mode, the test message is the one answered.
    const test = await consumer.apply(sms(client, { mode: 'test' }));
    expect((await eventOf(test.id)).routing).toMatchObject({ mode: 'test', webhook_url: hook });
  });

  it('when the reply lookup runs, then it reads the partial index of messages with replies', async () => {
    const db0 = db.pools[0]!;
    const client = await db0.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT message_id, webhook_url FROM messages
         WHERE client_id = 'c' AND mode = 'live' AND to_number = '+33611223344' AND replies AND webhook_url IS NOT NULL
           AND queued_at > now() - interval '24 hours' AND queued_at <= now()
         ORDER BY queued_at DESC LIMIT 1`,
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('messages_replies');
    } finally {
      client.release();
    }
  });
});
