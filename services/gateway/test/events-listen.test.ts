import { createHmac } from 'node:crypto';
import http from 'node:http';
import { connectNats, createLogger, listenSubject, newId, type Nats } from '@smsgw/platform';
import { eventually, NATS_URL, randomHex } from '@smsgw/testing';
import { ListenBus } from '../src/clients/listen-bus';
import { ListenerSlots } from '../src/clients/listener-slots';
import { apiKey, CLIENT, FleetGateway } from './support/fleet-gateway';

/** One server-sent event: its name, id and data, or a comment. */
interface Sse {
  event?: string;
  id?: string;
  data?: string;
  comment?: string;
}

/** GET /v1/events/listen read as a stream of server-sent events. */
async function listen(base: string, key: string, query = '') {
  const abort = new AbortController();
  const res = await fetch(`${base}/v1/events/listen${query}`, {
    headers: { 'x-api-key': key, 'x-client-id': CLIENT },
    signal: abort.signal,
  });
  const seen: Sse[] = [];
  if (res.ok) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const e: Sse = {};
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) e.comment = line.slice(1).trim();
              else if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('id: ')) e.id = line.slice(4);
              else if (line.startsWith('data: ')) e.data = line.slice(6);
            }
            seen.push(e);
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  return { res, seen, close: () => abort.abort() };
}

describe('GET /v1/events/listen through the gateway app on real NATS and Redis', () => {
  const gw = new FleetGateway();
  const withoutNats = new FleetGateway();
  const prefix = `t${randomHex(4)}`;
  const log = createLogger('gateway-test', 'silent');
  const bus = new ListenBus({ url: NATS_URL, prefix }, log);
  let publisher: Nats;
  const live = apiKey('live');

  beforeAll(async () => {
    bus.start();
    await eventually(async () => bus.connected, 10_000, 'NATS');
    publisher = await connectNats({ url: NATS_URL, prefix, name: 'webhook', log, jetstream: false });
    await gw.start((redis) => ({
      bus,
      slots: new ListenerSlots(redis, { max: 5, leaseMs: 3000 }),
      maxPerClient: 5,
      keepaliveMs: 300,
      keyCheckMs: 200,
      maxBufferedBytes: 64 * 1024,
    }));
    await withoutNats.start();
  });

  afterAll(async () => {
    await gw.stop();
    await withoutNats.stop();
    await bus.stop();
    await publisher.nc.close();
  });

  const envelope = (kind: string) => ({
    event: kind,
    event_id: newId('evt'),
    timestamp: '2030-01-15T10:00:00.000Z',
    data: { message_id: newId('msg'), status: kind.slice(4), to: '+33612345678', metadata: { note: 'é"\n' } },
  });

  /** Publishes an event as earlier webhook services did: one envelope without routing on listen.<client>.<mode>. */
  function publish(kind: string, mode: 'live' | 'test' = 'live') {
    const event = envelope(kind);
    publisher.nc.publish(listenSubject(prefix, CLIENT, mode), JSON.stringify(event));
    return event;
  }

  /** Publishes events as the webhook service does: those of a consumed batch in one array. */
  function publishBatch(kinds: string[]) {
    const events = kinds.map(envelope);
    publisher.nc.publish(listenSubject(prefix, CLIENT, 'live'), JSON.stringify(events));
    return events;
  }

  it('when a listener opens, then it gets ready with a secret of its own, then each event of its mode and kinds signed as a webhook delivery (published alone or in a batch), and keepalives', async () => {
    const listener = await listen(gw.base, live, '?events=sms.delivered,sms.sent');
    expect(listener.res.status).toBe(200);
    expect(listener.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const [ready] = await eventually(async () => listener.seen.length >= 1 && listener.seen, 5000, 'ready');
    expect(ready!.event).toBe('ready');
    const session = JSON.parse(ready!.data!) as { secret: string; mode: string; events: string[] };
    expect(session).toEqual({
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      mode: 'live',
      events: ['sms.sent', 'sms.delivered'],
    });

    publish('sms.received');
    publish('sms.sent', 'test');
    const sent = publish('sms.sent');
    const [delivered, , alsoSent] = publishBatch(['sms.delivered', 'sms.received', 'sms.sent']);
    const webhooks = await eventually(async () => {
      const found = listener.seen.filter((e) => e.event === 'webhook');
      return found.length >= 3 && found;
    });
    const before = Date.now();
    await eventually(async () => listener.seen.some((e) => e.comment === 'keepalive'), 5000, 'a keepalive');
    expect(webhooks.map((w) => w.id)).toEqual([sent.event_id, delivered!.event_id, alsoSent!.event_id]);
    const delivery = JSON.parse(webhooks[0]!.data!) as { body: string; signature: string; timestamp: string };
    expect(delivery.signature).toBe(createHmac('sha256', session.secret).update(delivery.body, 'utf8').digest('hex'));
    expect(JSON.parse(delivery.body)).toEqual({ ...sent, timestamp: delivery.timestamp });
    expect(Object.keys(JSON.parse(delivery.body) as object)).toEqual(['event', 'event_id', 'timestamp', 'data']);
    expect(Math.abs(Date.parse(delivery.timestamp) - before)).toBeLessThan(5000);
    listener.close();
  });

  it('when an unknown kind is asked for, then 400 VALIDATION_ERROR in the envelope', async () => {
    const res = await gw.call('GET', '/v1/events/listen?events=sms.sent,sms.lost', { key: live });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', details: [{ field: 'events' }] } });
  });

  it('when a client has 5 listeners open, then the sixth gets 429 in the envelope, and one more opens once one closed', async () => {
    const open = [];
    for (let i = 0; i < 5; i++) open.push(await listen(gw.base, i % 2 ? live : apiKey('test')));
    expect(open.map((l) => l.res.status)).toEqual([200, 200, 200, 200, 200]);

    const sixth = await gw.call('GET', '/v1/events/listen', { key: live });
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });

    open.pop()!.close();
    const again = await eventually(
      async () => {
        const l = await listen(gw.base, live);
        if (l.res.status === 200) return l;
        return undefined;
      },
      5000,
      'a free slot',
    );
    for (const l of [...open, again]) l.close();
  });

  it('when the key of an open stream is revoked, then the stream says closed with INVALID_API_KEY and ends, within the auth cache time and a check', async () => {
    const key = apiKey('live');
    const listener = await listen(gw.base, key);
    expect(listener.res.status).toBe(200);
    await eventually(async () => listener.seen.some((e) => e.event === 'ready'), 5000, 'ready');

    const revokedAt = Date.now();
    gw.revoked.add(key);
    const closed = await eventually(async () => listener.seen.find((e) => e.event === 'closed'), 10_000, 'closed');

    // The API's auth cache keeps a verified key 5 s; the stream checks it every 200 ms.
    expect(Date.now() - revokedAt).toBeLessThan(5000 + 1500);
    expect(JSON.parse(closed.data!)).toEqual({ code: 'INVALID_API_KEY', message: expect.any(String) });
    const slots = await gw.redis.zcard(`listen:${CLIENT}`);
    expect(slots).toBe(0);
    const before = listener.seen.length;
    publish('sms.sent');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(listener.seen.slice(before).filter((e) => e.event === 'webhook')).toEqual([]);
    listener.close();
  }, 15_000);

  it('when a listener reads nothing while events keep coming, then its stream is closed once the gateway holds its bound for it, and its slot is free', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(`${gw.base}/v1/events/listen`, { headers: { 'x-api-key': live, 'x-client-id': CLIENT } }, resolve);
      req.on('error', reject);
    });
    expect(res.statusCode).toBe(200);
    res.pause();
    await eventually(async () => (await gw.redis.zcard(`listen:${CLIENT}`)) === 1, 5000, 'the slot taken');

    // About 40 MB of events: more than the sockets' buffers and the 64 KiB the gateway may hold.
    const padding = 'x'.repeat(2000);
    for (let i = 0; i < 20_000; i++) {
      publisher.nc.publish(
        listenSubject(prefix, CLIENT, 'live'),
        JSON.stringify({ event: 'sms.sent', event_id: newId('evt'), timestamp: '2030-01-15T10:00:00.000Z', data: { padding } }),
      );
      if (i % 1000 === 999) await publisher.nc.flush();
    }
    await eventually(async () => (await gw.redis.zcard(`listen:${CLIENT}`)) === 0, 10_000, 'the slow listener closed');

    let bytes = 0;
    res.on('data', (chunk: Buffer) => (bytes += chunk.length));
    res.resume();
    await new Promise<void>((resolve) => res.on('close', () => resolve()));
    expect(bytes).toBeLessThan(20_000 * 2000);
  }, 30_000);

  it('when the gateway has no NATS, then the route answers 503 and nothing else changes', async () => {
    const res = await withoutNats.call('GET', '/v1/events/listen', { key: live });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});
