import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newId, type PublicEvent } from '@smsgw/platform';
import { ensureCerts } from '@smsgw/stack';
import { eventually, randomHex, sleep } from '@smsgw/testing';
import { destinationsOf } from '../src/domain/routing';
import { parseKinds } from '../src/domain/event-kinds';
import { startWebhookService, type RunningWebhookService } from './support/service';

// Received SMS (issue 24): `sms.received` is a kind endpoints subscribe to, delivered, logged and
// replayed as the others; never sent to a message's own webhook_url (it belongs to no sent message).

const CLIENT = 'client_received';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

const signatureOf = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');

describe('sms.received through the real webhook service', () => {
  let service: RunningWebhookService;
  let server: https.Server;
  const received: Received[] = [];
  const at = (where: string) => received.filter((r) => r.path === where);
  const url = (where: string) => `https://127.0.0.1:${(server.address() as AddressInfo).port}${where}`;

  beforeAll(async () => {
    const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-webhook-test-certs'));
    server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '/', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service = await startWebhookService({ clientId: CLIENT }, { WEBHOOK_EXTRA_CA_FILE: certs.caCertFile, WEBHOOK_TIMEOUT_MS: '2000' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  async function endpoint(where: string, events: string[]) {
    return service.client.createEndpoint({ clientId: CLIENT, url: url(where), events, mode: 'MODE_LIVE', description: where });
  }

  /** Publishes `sms.received` as the message service does: on events.sms.received, Nats-Msg-Id = event id. */
  async function publishReceived(): Promise<PublicEvent> {
    // 'rcv' is not an IdPrefix of the platform: the same ULID scheme as messages.
    const id = `rcv_${newId('msg').slice(4)}`;
    const event: PublicEvent = {
      event: 'sms.received',
      event_id: `evt_${id.slice(4)}`,
      timestamp: new Date().toISOString(),
      data: {
        id,
        from: '+33698765432',
        device_id: 'device_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
        sim: null,
        message: 'Bonjour',
        received_at: new Date().toISOString(),
      },
      routing: { client_id: CLIENT, mode: 'live' },
    };
    const nats = service.sandbox.nats!;
    await nats.js.publish(nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });
    return event;
  }

  it('when an endpoint subscribed to sms.received, then it gets one signed delivery of the event, logged and replayable; one not subscribed gets none', async () => {
    const subscribed = `/received-${randomHex(3)}`;
    const other = `/sent-only-${randomHex(3)}`;
    const { secret } = await endpoint(subscribed, ['sms.received']);
    await endpoint(other, ['sms.sent', 'sms.delivered', 'sms.failed']);

    const event = await publishReceived();
    const [first] = await eventually(async () => at(subscribed).length >= 1 && at(subscribed), 15_000, 'the delivery');
    await sleep(1000);

    expect(at(subscribed)).toHaveLength(1);
    expect(at(other)).toHaveLength(0);
    expect(JSON.parse(first!.raw)).toEqual({
      event: 'sms.received',
      event_id: event.event_id,
      timestamp: expect.any(String),
      data: event.data,
    });
    expect(first!.headers).toMatchObject({ 'x-webhook-event': 'sms.received', 'x-webhook-event-id': event.event_id });
    expect(first!.headers['x-webhook-signature']).toBe(signatureOf(secret, first!.raw));
    const logged = await eventually(async () => {
      const found = (await service.client.listDeliveries({ clientId: CLIENT, eventId: event.event_id, limit: 10 })).deliveries;
      return found[0]?.state === 'succeeded' && found;
    });
    expect(logged).toHaveLength(1);

    const replayed = await service.client.replayEvent({ clientId: CLIENT, eventId: event.event_id, endpointId: '' });
    const again = await eventually(async () => at(subscribed).length >= 2 && at(subscribed), 15_000, 'the replay');
    expect(replayed.deliveries).toHaveLength(1);
    expect(JSON.parse(again[1]!.raw)).toMatchObject({ event: 'sms.received', event_id: event.event_id, data: event.data });
    expect(again[1]!.headers['x-webhook-signature']).toBe(signatureOf(secret, again[1]!.raw));
  });

  it('when the same sms.received is published twice (a phone resending it), then the endpoint still gets it once', async () => {
    const where = `/dedup-${randomHex(3)}`;
    await endpoint(where, ['sms.received']);
    const event = await publishReceived();
    const nats = service.sandbox.nats!;
    await nats.js.publish(nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });

    await eventually(async () => at(where).length >= 1, 15_000, 'the delivery');
    await sleep(1000);
    expect(at(where)).toHaveLength(1);
  });

  it('when a test event of sms.received is asked for, then the endpoint gets a sample with the real fields', async () => {
    const where = `/sample-${randomHex(3)}`;
    const { endpointId } = await endpoint(where, ['sms.received']);
    await service.client.sendTestEvent({ clientId: CLIENT, endpointId, event: 'sms.received' });
    const [sample] = await eventually(async () => at(where).length >= 1 && at(where), 15_000, 'the sample');
    expect(JSON.parse(sample!.raw)).toMatchObject({
      event: 'sms.received',
      data: {
        id: expect.stringMatching(/^rcv_/),
        from: expect.any(String),
        device_id: expect.any(String),
        sim: null,
        in_reply_to: null,
        test_event: true,
      },
    });
  });
});

describe('sms.received in the routing rules', () => {
  it('when kinds are parsed, then sms.received is one; a reply routed to a message webhook_url goes there and to the subscribed endpoints', () => {
    expect(parseKinds(['sms.received', 'sms.sent'])).toEqual(['sms.sent', 'sms.received']);
    const endpoints = [
      {
        endpoint_id: 'whe_a',
        client_id: 'client_1',
        mode: 'live' as const,
        url: 'https://a.example/h',
        events: ['sms.received'],
        enabled: true,
      },
    ];
    const event: PublicEvent = {
      event: 'sms.received',
      event_id: 'evt_1',
      timestamp: new Date().toISOString(),
      data: {},
      routing: { client_id: 'client_1', mode: 'live', webhook_url: 'https://b.example/h' },
    };
    expect(destinationsOf(event, endpoints)).toEqual([
      { kind: 'message-url', key: 'url:https://b.example/h', url: 'https://b.example/h' },
      { kind: 'endpoint', key: 'endpoint:whe_a', url: 'https://a.example/h', endpointId: 'whe_a' },
    ]);
    expect(destinationsOf({ ...event, routing: { client_id: 'client_1', mode: 'live' } }, endpoints)).toEqual([
      { kind: 'endpoint', key: 'endpoint:whe_a', url: 'https://a.example/h', endpointId: 'whe_a' },
    ]);
    expect(destinationsOf({ ...event, routing: { client_id: 'client_1', mode: 'test' } }, endpoints)).toEqual([]);
  });
});
