import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import readline from 'node:readline';
import { createClient, type PromiseClient } from '@smsgw/platform';
import { webhookProto, type webhook } from '@smsgw/proto';
import { freePort, REPO_ROOT } from '@smsgw/stack';
import { eventually, request } from './support/http';
import { Receiver, type ReceivedWebhook } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

const sign = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (n: number, start = 612300000) => Array.from({ length: n }, (_, i) => `+33${start + i}`);

/** The compressed retry schedule of this test: attempt 2 after 1.5 s, attempt 3 after 3 s more. */
const RETRY_DELAYS_MS = [1500, 3000];

interface Envelope {
  event: string;
  event_id: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe('batched webhooks, the whole system', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let webhooks: PromiseClient<webhook.WebhookServiceClient>;
  let client: DemoClient;
  let device: DemoDevice;

  beforeAll(async () => {
    system = await TestSystem.start({
      WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(','),
      WEBHOOK_TIMEOUT_MS: '2000',
      // A phone that sends as fast as the hub lets it: 125 SMS in seconds.
      DISPATCH_INTERVAL_MIN_MS: '10',
      DISPATCH_INTERVAL_MAX_MS: '20',
    });
    receiver = await Receiver.start(system.stack.certs);
    webhooks = createClient(webhookProto().WebhookService, system.stack.webhookAddress, { tls: system.stack.grpcCredentials('admin') });
    client = await system.createClient();
    device = await system.createDevice(client.client_id, 'batches');
    await system.startAgent(client, device);
  });

  afterAll(async () => {
    webhooks?.close();
    await receiver?.stop();
    await system?.stop();
  });

  const envelopes = (hook: ReceivedWebhook) => JSON.parse(hook.raw) as Envelope[];

  it('when 250 events reach a batched endpoint, then they arrive in at most three POSTs, each verified with the endpoint secret, and a failed batch is retried whole on schedule', async () => {
    const created = await system.cli(
      ...['create-webhook', '--client', client.client_id, '--url', receiver.url('/batched')],
      ...['--events', 'sms.sent,sms.delivered', '--batch'],
    );
    expect(created).toMatchObject({ endpoint_id: expect.stringMatching(/^whe_/), secret: expect.stringMatching(/^whsec_/), batch: true });
    const secret = String(created.secret);
    // The receiver fails the first POST it gets, then takes everything.
    receiver.on('/batched', (n) => (n === 1 ? 500 : 200));

    // 125 SMS, a sent and a delivered event each. The events wait in JetStream while the webhook
    // service is stopped, so that they reach it together, as they do from a fleet at load.
    await system.stack.services.webhook.stop();
    const recipients = numbers(125);
    const messageIds: string[] = [];
    for (const part of [recipients.slice(0, 100), recipients.slice(100)]) {
      const res = await system.api('/v1/sms/send-bulk', client, {
        headers: { 'X-Device-ID': device.device_id },
        body: { recipients: part, message: 'Votre commande est prête', metadata: { shop: 'Lyon' } },
      });
      expect(res.status).toBe(200);
      messageIds.push(...(res.body.messages as { message_id: string }[]).map((m) => m.message_id));
    }
    await eventually(
      async () => {
        const res = await system.api('/v1/sms/history?status=delivered&limit=1', client);
        return (res.body.pagination as { total_items: number } | undefined)?.total_items === 125 ? true : undefined;
      },
      60_000,
      'the 125 SMS delivered',
      1000,
    );
    await system.stack.services.webhook.start();

    // Every event's first attempt, and the failed batch once more.
    const firstAttempts = () => receiver.at('/batched').filter((h) => h.headers['x-webhook-attempt'] === '1');
    await eventually(async () => (firstAttempts().flatMap(envelopes).length >= 250 ? true : undefined), 30_000, 'the 250 events');
    const [failed] = receiver.at('/batched');
    const retried = await eventually(
      async () => receiver.at('/batched').find((h) => h.headers['x-webhook-attempt'] === '2'),
      RETRY_DELAYS_MS[0]! + 10_000,
      'the retry of the failed batch',
    );
    await sleep(RETRY_DELAYS_MS[1]! + 1000);

    const posts = receiver.at('/batched');
    expect(firstAttempts().length).toBeLessThanOrEqual(3);
    expect(posts).toHaveLength(firstAttempts().length + 1);
    for (const post of posts) {
      expect(post.headers['x-webhook-signature']).toBe(sign(secret, post.raw));
      expect(post.headers['content-type']).toBe('application/json');
      expect(post.headers['x-webhook-batch-size']).toBe(String(envelopes(post).length));
      expect(envelopes(post).length).toBeLessThanOrEqual(100);
      for (const e of envelopes(post)) expect(Object.keys(e)).toEqual(['event', 'event_id', 'timestamp', 'data']);
    }
    // Each SMS's two events, each once in the first attempts.
    const events = firstAttempts().flatMap(envelopes);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(250);
    const kindsOf = (id: string) =>
      events
        .filter((e) => e.data.message_id === id)
        .map((e) => e.event)
        .sort();
    for (const id of messageIds) expect(kindsOf(id)).toEqual(['sms.delivered', 'sms.sent']);
    expect(events.every((e) => (e.data.metadata as Record<string, unknown>).shop === 'Lyon')).toBe(true);
    // The failed batch, whole and in its order, at its delay, signed anew.
    expect(failed!.headers['x-webhook-attempt']).toBe('1');
    expect(envelopes(retried).map((e) => e.event_id)).toEqual(envelopes(failed!).map((e) => e.event_id));
    expect(envelopes(retried)[0]!.timestamp).not.toBe(envelopes(failed!)[0]!.timestamp);
    expect(retried.at - failed!.at).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! - 100);
    expect(retried.at - failed!.at).toBeLessThan(RETRY_DELAYS_MS[0]! + 1500);

    // The delivery log still tells each event's story: two attempts for the failed batch's, one for the others.
    const log: webhook.Delivery__Output[] = [];
    let before = '';
    for (;;) {
      const page = await webhooks.listDeliveries({
        clientId: client.client_id,
        endpointId: String(created.endpoint_id),
        eventId: '',
        limit: 100,
        before,
      });
      log.push(...page.deliveries);
      if (page.deliveries.length < 100) break;
      before = page.deliveries[page.deliveries.length - 1]!.deliveryId;
    }
    expect(log).toHaveLength(250);
    const retriedIds = new Set(envelopes(failed!).map((e) => e.event_id));
    for (const d of log) {
      expect(d.state).toBe('succeeded');
      expect(d.attempts.map((a) => a.httpStatus)).toEqual(retriedIds.has(d.eventId) ? [500, 200] : [200]);
    }
  }, 180_000);

  it('when the documented example receiver serves a batched endpoint, then it handles each event of a signed array once, and refuses a forged or stale array', async () => {
    const port = await freePort();
    const created = await system.cli(
      ...['create-webhook', '--client', client.client_id, '--url', `https://127.0.0.1:${port}/webhooks`],
      ...['--events', 'sms.delivered', '--batch'],
    );
    const secret = String(created.secret);
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'examples/webhook-receiver.mjs'),
        ...['--port', String(port), '--secret', secret],
        ...['--cert', system.stack.certs.certFile, '--key', system.stack.certs.keyFile],
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines: Record<string, unknown>[] = [];
    readline.createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const waitLine = (match: (l: Record<string, unknown>) => boolean) =>
      eventually(async () => lines.find(match), 10_000, 'a line of the example receiver', 50);
    try {
      await waitLine((l) => 'listening' in l);
      const test = (await system.cli(
        ...['send-test-event', '--client', client.client_id, '--endpoint', String(created.endpoint_id), '--event', 'sms.delivered'],
      )) as { event_id: string };
      await waitLine((l) => l.event_id === test.event_id && l.handled === 'sms.delivered');
      await webhooks.replayEvent({ clientId: client.client_id, eventId: test.event_id, endpointId: '' });
      await waitLine((l) => l.duplicate === test.event_id);
      expect(lines.filter((l) => l.event_id === test.event_id)).toHaveLength(1);

      const post = async (body: string, signature: string) =>
        (
          await request(`https://127.0.0.1:${port}/webhooks`, system.stack.certs.caPem, {
            method: 'POST',
            headers: { 'X-Webhook-Signature': signature },
            rawBody: body,
          })
        ).status;
      const envelope = (eventId: string, at: Date) => ({
        event: 'sms.delivered',
        event_id: eventId,
        timestamp: at.toISOString(),
        data: {},
      });
      const stale = JSON.stringify([envelope('evt_old', new Date(Date.now() - 6 * 60_000))]);
      const forged = JSON.stringify([envelope('evt_forged', new Date())]);
      const fresh = JSON.stringify([envelope('evt_one', new Date()), envelope('evt_two', new Date())]);
      expect(await post(stale, sign(secret, stale))).toBe(400);
      expect(await post(forged, sign('whsec_wrong', forged))).toBe(401);
      expect(await post(fresh, sign(secret, fresh))).toBe(200);
      await waitLine((l) => l.event_id === 'evt_two');
      expect(lines.filter((l) => 'handled' in l).map((l) => l.event_id)).toEqual([test.event_id, 'evt_one', 'evt_two']);
    } finally {
      child.kill();
    }
  });
});
