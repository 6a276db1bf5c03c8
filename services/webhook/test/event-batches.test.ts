import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { newId, type PublicEvent } from '@smsgw/platform';
import { ensureCerts } from '@smsgw/stack';
import { eventually, randomHex, sleep } from '@smsgw/testing';
import { startWebhookService, type RunningWebhookService } from './support/service';

// The events as the message service publishes them: many in one message (event-batches.<publisher>).

const CLIENT = 'client_batches';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

const signatureOf = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');

describe('batches of events through the real webhook service', () => {
  let service: RunningWebhookService;
  let server: https.Server;
  let env: Record<string, string>;
  const received: Received[] = [];
  const at = (where: string) => received.filter((r) => r.path === where);
  const url = (where: string) => `https://127.0.0.1:${(server.address() as AddressInfo).port}${where}`;

  beforeAll(async () => {
    const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-webhook-test-certs'));
    server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '/', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env = { WEBHOOK_EXTRA_CA_FILE: certs.caCertFile, WEBHOOK_TIMEOUT_MS: '2000' };
    service = await startWebhookService({ clientId: CLIENT }, env);
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  const smsEvent = (kind: 'sms.sent' | 'sms.delivered', webhookUrl?: string): PublicEvent => {
    const messageId = newId('msg');
    return {
      event: kind,
      event_id: newId('evt'),
      timestamp: new Date().toISOString(),
      data: { message_id: messageId, status: kind.slice(4), to: '+33612345678', sim: null, metadata: {} },
      routing: { client_id: CLIENT, mode: 'live', ...(webhookUrl ? { webhook_url: webhookUrl } : {}) },
    };
  };

  async function publish(events: unknown[]): Promise<void> {
    const nats = service.sandbox.nats!;
    await nats.js.publish(nats.names.eventBatch('message'), JSON.stringify({ events }), { msgID: randomHex() });
  }

  it("when a batch holds events for messages' own URLs and for an endpoint, then each goes to its destination once, signed as one event alone is", async () => {
    const own = `/own-${randomHex(3)}`;
    const subscribed = `/endpoint-${randomHex(3)}`;
    const { secret } = await service.client.createEndpoint({
      clientId: CLIENT,
      url: url(subscribed),
      events: ['sms.delivered'],
      mode: 'MODE_LIVE',
      description: 'batches',
    });
    const events = [smsEvent('sms.sent', url(own)), smsEvent('sms.delivered', url(own)), smsEvent('sms.delivered')];

    await publish(events);

    await eventually(async () => at(own).length >= 2 && at(subscribed).length >= 1, 15_000, 'the deliveries');
    await sleep(500);
    expect(
      at(own)
        .map((r) => JSON.parse(r.raw).event_id)
        .sort(),
    ).toEqual([events[0]!.event_id, events[1]!.event_id].sort());
    expect(at(subscribed).map((r) => JSON.parse(r.raw))).toEqual([
      { event: 'sms.delivered', event_id: events[2]!.event_id, timestamp: expect.any(String), data: events[2]!.data },
    ]);
    expect(at(subscribed)[0]!.headers['x-webhook-signature']).toBe(signatureOf(secret, at(subscribed)[0]!.raw));
  });

  it('when an event comes in two batches, or a batch holds one that cannot be read, then each good event is delivered once', async () => {
    const where = `/twice-${randomHex(3)}`;
    const event = smsEvent('sms.sent', url(where));
    const other = smsEvent('sms.delivered', url(where));

    await publish([event, { event: 'sms.exploded', data: 1 }]);
    await publish([event, other]);

    await eventually(async () => at(where).length >= 2, 15_000, 'the deliveries');
    await sleep(1000);
    expect(
      at(where)
        .map((r) => JSON.parse(r.raw).event_id)
        .sort(),
    ).toEqual([event.event_id, other.event_id].sort());
  });

  it('when two replicas share the batches and they come two at a time, then every event is delivered within a second, none held back', async () => {
    const second = await startWebhookService({ clientId: CLIENT }, env, service.sandbox);
    try {
      const where = `/replicas-${randomHex(3)}`;
      const events = Array.from({ length: 20 }, () => smsEvent('sms.sent', url(where)));
      const published = new Map<string, number>();
      // Two batches published together: whichever replica takes the first sees the second still pending.
      for (let i = 0; i < events.length; i += 2) {
        const pair = [events[i]!, events[i + 1]!];
        await Promise.all(pair.map((e) => publish([e])));
        for (const e of pair) published.set(e.event_id, Date.now());
        await sleep(250);
      }

      await eventually(async () => new Set(at(where).map((r) => JSON.parse(r.raw).event_id)).size === events.length, 10_000, 'every event');
      const late = at(where)
        .map((r) => ({ id: JSON.parse(r.raw).event_id as string, after: r.at - published.get(JSON.parse(r.raw).event_id)! }))
        .filter((d) => d.after > 1000);
      expect(late).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 40_000);
});
