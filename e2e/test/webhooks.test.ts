import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';
import readline from 'node:readline';
import { createClient, type PromiseClient } from '@smsgw/platform';
import { accountProto, webhookProto, type webhook } from '@smsgw/proto';
import pg from 'pg';
import { freePort, grpcServing, REPO_ROOT, ServiceProcess, startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { Receiver, type ReceivedWebhook } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

const sign = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The compressed retry schedule of these tests: attempt 2 after 1.5 s, attempt 3 after 3 s more. */
const RETRY_DELAYS_MS = [1500, 3000];

describe('webhooks, the whole system', () => {
  let system: TestSystem;
  let mail: MailCatcher;
  let receiver: Receiver;
  let webhooks: PromiseClient<webhook.WebhookServiceClient>;
  let client: DemoClient;
  let device: DemoDevice;

  beforeAll(async () => {
    mail = await startMailCatcher();
    system = await TestSystem.start({
      SMTP_URL: mail.url,
      WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(','),
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_PER_DESTINATION: '4',
      WEBHOOK_USER_AGENT_NAME: 'SMSGatewayTest',
    });
    receiver = await Receiver.start(system.stack.certs);
    webhooks = createClient(webhookProto().WebhookService, system.stack.webhookAddress, { tls: system.stack.grpcCredentials('admin') });
    client = await system.createClient();
    device = await system.createDevice(client.client_id, 'webhooks');
    await system.startAgent(client, device);
  });

  afterAll(async () => {
    webhooks?.close();
    await receiver?.stop();
    await system?.stop();
    await mail?.stop();
  });

  async function endpoint(c: DemoClient, path: string, events: string[], mode: 'live' | 'test' = 'live') {
    const args = ['create-webhook', '--client', c.client_id, '--url', receiver.url(path), '--events', events.join(',')];
    const created = await system.cli(...(mode === 'test' ? [...args, '--test'] : args));
    expect(created).toMatchObject({ endpoint_id: expect.stringMatching(/^whe_/), secret: expect.stringMatching(/^whsec_/) });
    return created as { endpoint_id: string; secret: string };
  }

  async function send(c: DemoClient, d: DemoDevice, body: Record<string, unknown>, mode: 'live' | 'test' = 'live'): Promise<string> {
    const res = await system.api('/v1/sms/send', c, { headers: { 'X-Device-ID': d.device_id }, body }, mode);
    expect(res.status).toBe(200);
    return String(res.body.message_id);
  }

  function expectSigned(hook: ReceivedWebhook, secret: string) {
    expect(hook.headers['x-webhook-signature']).toBe(sign(secret, hook.raw));
    expect(hook.headers['content-type']).toBe('application/json');
    expect(hook.headers['user-agent']).toBe('SMSGatewayTest-Webhook/1.0');
    expect(Object.keys(hook.body).sort()).toEqual(['data', 'event', 'event_id', 'timestamp']);
    expect(hook.body.event_id).toMatch(/^evt_/);
    expect(Number.isNaN(Date.parse(hook.body.timestamp))).toBe(false);
  }

  it('when a message has a webhook_url, then it receives sms.sent then sms.delivered, signed with the client secret, and the global endpoints do not', async () => {
    const global = await endpoint(client, '/global-1', ['sms.sent', 'sms.delivered', 'sms.failed']);
    const id = await send(client, device, {
      to: '+33612345678',
      message: 'Votre colis arrive',
      webhook_url: receiver.url('/per-message'),
      metadata: { order: 'A-17' },
    });
    // Both attempts may be under way at once (32 may be to one destination): they leave in the order of
    // the events (services/webhook/test/dispatcher.test.ts), and may arrive in either.
    const order = ['sms.sent', 'sms.delivered'];
    const hooks = (await receiver.waitFor('/per-message', 2)).sort(
      (a, b) => order.indexOf(String(a.body.event)) - order.indexOf(String(b.body.event)),
    );
    expect(hooks.map((h) => h.body.event)).toEqual(order);
    for (const h of hooks) expectSigned(h, client.signing_secret);
    expect(hooks[0]!.body.data).toMatchObject({ message_id: id, status: 'sent', to: '+33612345678', metadata: { order: 'A-17' } });
    expect(hooks[1]!.body.data).toMatchObject({
      message_id: id,
      status: 'delivered',
      to: '+33612345678',
      delivered_at: expect.any(String),
      metadata: { order: 'A-17' },
    });
    await sleep(500);
    expect(receiver.at('/global-1').filter((h) => h.body.data.message_id === id)).toEqual([]);
    await webhooks.deleteEndpoint({ clientId: client.client_id, endpointId: global.endpoint_id });
  });

  it('when global endpoints subscribe to some kinds, then each gets only its kinds, signed with its own secret, sms.failed with its error', async () => {
    const c = await system.createClient();
    const d = await system.createDevice(c.client_id, 'filters');
    await system.startAgent(c, d);
    const delivered = await endpoint(c, '/only-delivered', ['sms.delivered']);
    const sentFailed = await endpoint(c, '/sent-failed', ['sms.sent', 'sms.failed']);
    const ok = await send(c, d, { to: '+33612345678', message: 'Bonjour' });
    const bad = await send(c, d, { to: '+33600000002', message: 'Bonjour', metadata: { ref: 7 } });

    const [del] = await receiver.waitFor('/only-delivered', 1);
    expectSigned(del!, delivered.secret);
    expect(del!.body).toMatchObject({ event: 'sms.delivered', data: { message_id: ok, status: 'delivered' } });
    const got = await receiver.waitFor('/sent-failed', 2);
    for (const h of got) expectSigned(h, sentFailed.secret);
    expect(got.find((h) => h.body.event === 'sms.sent')!.body.data.message_id).toBe(ok);
    const failed = got.find((h) => h.body.event === 'sms.failed')!;
    expect(failed.body.data).toMatchObject({
      message_id: bad,
      status: 'failed',
      to: '+33600000002',
      error: { code: 'OUT_OF_NETWORK', message: 'Destinataire hors réseau.' },
      metadata: { ref: 7 },
    });
    await sleep(500);
    expect(receiver.at('/only-delivered').map((h) => h.body.event)).toEqual(['sms.delivered']);
    expect(
      receiver
        .at('/sent-failed')
        .map((h) => h.body.event)
        .sort(),
    ).toEqual(['sms.failed', 'sms.sent']);
  });

  it('when test and live endpoints exist, then test-mode events reach only the test endpoint and live events only the live one', async () => {
    const c = await system.createClient();
    const d = await system.createDevice(c.client_id, 'modes');
    await system.startAgent(c, d);
    await endpoint(c, '/live-only', ['sms.delivered']);
    await endpoint(c, '/test-only', ['sms.delivered'], 'test');
    const testId = await send(c, d, { to: '+33612345678', message: 'Essai' }, 'test');
    const liveId = await send(c, d, { to: '+33612345678', message: 'Réel' });
    const [t] = await receiver.waitFor('/test-only', 1);
    const [l] = await receiver.waitFor('/live-only', 1);
    expect(t!.body.data.message_id).toBe(testId);
    expect(l!.body.data.message_id).toBe(liveId);
    await sleep(800);
    expect(receiver.at('/test-only')).toHaveLength(1);
    expect(receiver.at('/live-only')).toHaveLength(1);
  });

  it('when a phone connects and disconnects, then device.connected and device.disconnected reach the subscribed endpoint with their data', async () => {
    const c = await system.createClient();
    const d = await system.createDevice(c.client_id, 'Pixel 8');
    const e = await endpoint(c, '/devices', ['device.connected', 'device.disconnected']);
    const phone = await system.startAgent(c, d);
    const [connected] = await receiver.waitFor('/devices', 1);
    expectSigned(connected!, e.secret);
    expect(connected!.body).toMatchObject({
      event: 'device.connected',
      data: { device_id: d.device_id, client_id: c.client_id, name: 'Pixel 8', at: expect.any(String), reason: expect.any(String) },
    });
    await phone.kill();
    const hooks = await receiver.waitFor('/devices', 2);
    expect(hooks[1]!.body).toMatchObject({
      event: 'device.disconnected',
      data: { device_id: d.device_id, client_id: c.client_id, name: 'Pixel 8' },
    });
  });

  it('when the receiver keeps failing, then it gets 3 attempts on the compressed schedule with the same event, and the account gets one alert e-mail', async () => {
    const c = await system.createClient();
    const d = await system.createDevice(c.client_id, 'retries');
    await system.startAgent(c, d);
    const e = await endpoint(c, '/always-500', ['sms.delivered']);
    receiver.on('/always-500', 500);
    const id = await send(c, d, { to: '+33612345678', message: 'Relance' });
    const attempts = await receiver.waitFor('/always-500', 3, 30_000);
    expect(new Set(attempts.map((a) => a.body.event_id)).size).toBe(1);
    expect(new Set(attempts.map((a) => JSON.stringify(a.body.data))).size).toBe(1);
    // Each attempt is signed when it is made: its timestamp is fresh, so receivers can refuse stale captures but not late retries.
    for (const a of attempts) expect(Math.abs(Date.parse(a.body.timestamp) - a.at)).toBeLessThan(1000);
    for (const a of attempts) expectSigned(a, e.secret);
    expect(attempts[0]!.body.data.message_id).toBe(id);
    const gap1 = attempts[1]!.at - attempts[0]!.at;
    const gap2 = attempts[2]!.at - attempts[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! - 100);
    expect(gap1).toBeLessThan(RETRY_DELAYS_MS[0]! + 1500);
    expect(gap2).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[1]! - 100);
    expect(gap2).toBeLessThan(RETRY_DELAYS_MS[1]! + 1500);

    const alert = await mail.waitFor((m) => m.raw.includes(attempts[0]!.body.event_id));
    expect(alert.to).toEqual([expect.stringMatching(/@example\.com$/)]);
    expect(alert.raw).toContain(e.endpoint_id);
    expect(alert.raw).toContain('HTTP 500');
    await sleep(RETRY_DELAYS_MS[1]! + 500);
    expect(receiver.at('/always-500')).toHaveLength(3);
    expect(mail.mails.filter((m) => m.raw.includes(attempts[0]!.body.event_id))).toHaveLength(1);

    const log = await webhooks.listDeliveries({ clientId: c.client_id, endpointId: e.endpoint_id, eventId: '', limit: 10, before: '' });
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({
      state: 'failed',
      attempt: 3,
      httpStatus: 500,
      eventId: attempts[0]!.body.event_id,
      event: 'sms.delivered',
    });
    expect(log.deliveries[0]!.attempts.map((a) => [a.attempt, a.httpStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
    ]);
    expect(log.deliveries[0]!.attempts.every((a) => a.latencyMs >= 0 && a.error === 'HTTP 500')).toBe(true);
  });

  it('when the receiver fails once and then answers 200, then the delivery succeeds on attempt 2 and no alert is sent', async () => {
    const c = await system.createClient();
    const d = await system.createDevice(c.client_id, 'flaky');
    await system.startAgent(c, d);
    const e = await endpoint(c, '/flaky', ['sms.sent']);
    receiver.on('/flaky', (n) => (n === 1 ? 503 : 200));
    await send(c, d, { to: '+33612345678', message: 'Une fois' });
    const got = await receiver.waitFor('/flaky', 2, 20_000);
    expect(got[0]!.body.event_id).toBe(got[1]!.body.event_id);
    const delivery = await eventuallyDelivery(c, e.endpoint_id, (x) => x.state === 'succeeded');
    expect(delivery.attempts.map((a) => a.httpStatus)).toEqual([503, 200]);
    await sleep(RETRY_DELAYS_MS[1]! + 500);
    expect(receiver.at('/flaky')).toHaveLength(2);
    expect(mail.mails.some((m) => m.raw.includes(got[0]!.body.event_id))).toBe(false);
  });

  it('when an owner who signed up has not verified the alert address, then a dropped delivery sends no alert e-mail; once verified with its link, the next one does', async () => {
    const email = `unverified${Date.now()}@example.com`;
    const c = (await system.cli(
      'create-user',
      '--email',
      email,
      '--password',
      'a long password',
      '--name',
      'Unverified',
    )) as unknown as DemoClient;
    const d = await system.createDevice(c.client_id, 'unverified');
    await system.startAgent(c, d);
    const e = await endpoint(c, '/unverified-500', ['sms.delivered']);
    receiver.on('/unverified-500', 500);
    await send(c, d, { to: '+33612345678', message: 'Sans alerte' });
    const first = await receiver.waitFor('/unverified-500', 3, 30_000);
    await eventuallyDelivery(c, e.endpoint_id, (x) => x.state === 'failed' && x.eventId === first[0]!.body.event_id);
    await sleep(2000);
    expect(mail.mails.filter((m) => m.to.includes(email))).toEqual([]);

    const accounts = createClient(accountProto().AccountService, system.stack.accountAddress, {
      tls: system.stack.grpcCredentials('dashboard'),
    });
    try {
      const link = await accounts.issueEmailVerification({ clientId: c.client_id });
      expect(link.email).toBe(email);
      expect((await accounts.verifyEmail({ token: link.token })).verified).toBe(true);
    } finally {
      accounts.close();
    }
    await send(c, d, { to: '+33612345678', message: 'Avec alerte' });
    const second = await receiver.waitFor('/unverified-500', 6, 30_000);
    const alert = await mail.waitFor((m) => m.to.includes(email));
    // Quoted-printable may break a long line anywhere: undo its soft breaks before looking for the event.
    expect(alert.raw.replace(/=\r?\n/g, '')).toContain(second[5]!.body.event_id);
    expect(mail.mails.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  async function eventuallyDelivery(c: DemoClient, endpointId: string, ok: (d: webhook.Delivery__Output) => boolean, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { deliveries } = await webhooks.listDeliveries({ clientId: c.client_id, endpointId, eventId: '', limit: 10, before: '' });
      const found = deliveries.find(ok);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no delivery matched: ${JSON.stringify(deliveries)}`);
      await sleep(100);
    }
  }

  it("when one client's receiver hangs on every request, then another client's deliveries, even to the same host, still arrive at once", async () => {
    const slow = await system.createClient();
    const slowPhone = await system.createDevice(slow.client_id, 'slow');
    await system.startAgent(slow, slowPhone);
    await endpoint(slow, '/hangs', ['sms.sent', 'sms.delivered']);
    receiver.on('/hangs', 'hang');
    // Far more deliveries than the hanging receiver's share of attempts in flight.
    for (let i = 0; i < 6; i++) await send(slow, slowPhone, { to: '+33612345678', message: `lent ${i}` });
    await receiver.waitFor('/hangs', 4, 20_000);

    await endpoint(client, '/fast', ['sms.sent']);
    const id = await send(client, device, { to: '+33612345678', message: 'rapide' });
    const sentAt = await eventuallyStatusTime(id);
    const [fast] = await receiver.waitFor('/fast', 1, 10_000, (h) => h.body.data.message_id === id);
    expect(fast!.at - sentAt).toBeLessThan(1000);
  });

  async function eventuallyStatusTime(id: string): Promise<number> {
    const body = await system.waitForStatus(client, id, 'delivered');
    return Date.parse(String(body.sent_at));
  }

  it('when the webhook service is SIGKILLed between attempts, then the next attempt still comes on time after it restarts', async () => {
    const c = await system.createClient();
    const d = await system.createDevice(c.client_id, 'kill');
    await system.startAgent(c, d);
    const e = await endpoint(c, '/after-kill', ['sms.sent']);
    receiver.on('/after-kill', (n) => (n === 1 ? 500 : 200));
    await send(c, d, { to: '+33612345678', message: 'Survivre' });
    const [first] = await receiver.waitFor('/after-kill', 1);
    // Between attempts: the first one is over once its outcome and its retry are stored. A kill
    // before that (the receiver has answered, the service has not yet written it down) leaves the
    // delivery leased, and the sweep retries it when the lease runs out: late, not lost.
    await eventuallyDelivery(c, e.endpoint_id, (dl) => dl.attempt === 1 && dl.state === 'pending' && dl.nextAttemptAt !== '');
    await system.stack.services.webhook.stop('SIGKILL');
    await system.stack.services.webhook.start();
    // On time: at its delay after the first attempt, or soon after the restart when that took longer
    // (a busy machine can take longer than the delay to start a process).
    const restartedAt = Date.now();
    const got = await receiver.waitFor('/after-kill', 2, 45_000);
    expect(got[1]!.body.event_id).toBe(first!.body.event_id);
    expect(got[1]!.at - first!.at).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]! - 100);
    expect(got[1]!.at).toBeLessThan(Math.max(first!.at + RETRY_DELAYS_MS[0]!, restartedAt) + 3000);
  });

  it('when a test event is sent from the command line and an event is replayed, then the receiver gets them with the right kind, the same event_id and body for the replay', async () => {
    const c = await system.createClient();
    const e = await endpoint(c, '/tests', ['sms.sent']);
    const sent = (await system.cli('send-test-event', '--client', c.client_id, '--endpoint', e.endpoint_id, '--event', 'sms.failed')) as {
      event_id: string;
    };
    const [test] = await receiver.waitFor('/tests', 1);
    expectSigned(test!, e.secret);
    expect(test!.body).toMatchObject({
      event: 'sms.failed',
      event_id: sent.event_id,
      data: { status: 'failed', error: { code: expect.any(String) } },
    });

    const replayed = await webhooks.replayEvent({ clientId: c.client_id, eventId: sent.event_id, endpointId: '' });
    expect(replayed.deliveries).toHaveLength(1);
    expect(replayed.deliveries[0]).toMatchObject({ eventId: sent.event_id, replayOf: expect.stringMatching(/^dlv_/) });
    const both = await receiver.waitFor('/tests', 2);
    expect(both[1]!.body.event_id).toBe(both[0]!.body.event_id);
    expect(both[1]!.body.data).toEqual(both[0]!.body.data);
    expectSigned(both[1]!, e.secret);
    expect(both[1]!.headers['x-webhook-delivery-id']).not.toBe(both[0]!.headers['x-webhook-delivery-id']);

    const listed = await system.cli('list-webhooks', '--client', c.client_id);
    expect(Object.values(listed)).toEqual([
      expect.objectContaining({ endpoint_id: e.endpoint_id, events: ['sms.sent'], mode: 'live', enabled: true }),
    ]);
    await expect(webhooks.replayEvent({ clientId: c.client_id, eventId: 'evt_unknown', endpointId: '' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: [{ code: 'EVENT_NOT_FOUND' }],
    });
    const other = await system.createClient();
    await expect(webhooks.replayEvent({ clientId: other.client_id, eventId: sent.event_id, endpointId: '' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('when endpoints are created with bad input, then each is refused with a clear error and nothing is stored', async () => {
    const c = await system.createClient();
    const refuse = async (url: string, events: string[], code: string) =>
      expect(webhooks.createEndpoint({ clientId: c.client_id, url, events, mode: 'MODE_LIVE', description: '' })).rejects.toMatchObject({
        code,
      });
    await refuse('http://example.com/hook', ['sms.sent'], 'INVALID_WEBHOOK_URL');
    await refuse('https://user:pw@example.com/hook', ['sms.sent'], 'INVALID_WEBHOOK_URL');
    await refuse('not a url', ['sms.sent'], 'INVALID_WEBHOOK_URL');
    await refuse(receiver.url('/x'), [], 'VALIDATION_ERROR');
    await refuse(receiver.url('/x'), ['sms.sent', 'sms.read'], 'VALIDATION_ERROR');
    await expect(
      webhooks.createEndpoint({
        clientId: 'client_0000',
        url: receiver.url('/x'),
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      }),
    ).rejects.toMatchObject({ code: 'INVALID_CLIENT_ID' });
    expect((await webhooks.listEndpoints({ clientId: c.client_id })).endpoints).toEqual([]);

    const httpUrl = await system.api('/v1/sms/send', c, {
      body: { to: '+33612345678', message: 'x', webhook_url: 'http://example.com/hook' },
    });
    expect(httpUrl.status).toBe(400);
    expect(httpUrl.body).toMatchObject({ success: false, error: { code: 'INVALID_WEBHOOK_URL' } });
  });

  it('when the documented example receiver is used, then it handles a signed event once, drops the replay as a duplicate, and refuses a bad signature and a stale timestamp', async () => {
    const c = await system.createClient();
    const port = await freePort();
    const e = await system.cli(
      'create-webhook',
      '--client',
      c.client_id,
      '--url',
      `https://127.0.0.1:${port}/webhooks`,
      '--events',
      'sms.delivered',
    );
    const secret = String(e.secret);
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'examples/webhook-receiver.mjs'),
        '--port',
        String(port),
        '--secret',
        secret,
        '--cert',
        system.stack.certs.certFile,
        '--key',
        system.stack.certs.keyFile,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines: Record<string, unknown>[] = [];
    readline.createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const waitLine = async (match: (l: Record<string, unknown>) => boolean) => {
      for (let i = 0; i < 200; i++) {
        const found = lines.find(match);
        if (found) return found;
        await sleep(50);
      }
      throw new Error(`no such line in ${JSON.stringify(lines)}`);
    };
    try {
      await waitLine((l) => 'listening' in l);
      const test = (await system.cli(
        'send-test-event',
        '--client',
        c.client_id,
        '--endpoint',
        String(e.endpoint_id),
        '--event',
        'sms.delivered',
      )) as { event_id: string };
      await waitLine((l) => l.event_id === test.event_id && l.handled === 'sms.delivered');
      await webhooks.replayEvent({ clientId: c.client_id, eventId: test.event_id, endpointId: '' });
      await waitLine((l) => l.duplicate === test.event_id);
      expect(lines.filter((l) => l.event_id === test.event_id)).toHaveLength(1);

      const post = (body: string, signature: string) =>
        new Promise<{ status: number }>((resolve, reject) => {
          const r = https.request(
            `https://127.0.0.1:${port}/webhooks`,
            {
              method: 'POST',
              ca: system.stack.certs.caPem,
              headers: { 'X-Webhook-Signature': signature, 'Content-Type': 'application/json' },
            },
            (res) => {
              res.resume();
              resolve({ status: res.statusCode ?? 0 });
            },
          );
          r.on('error', reject);
          r.end(body);
        });
      const stale = JSON.stringify({
        event: 'sms.delivered',
        event_id: 'evt_old',
        timestamp: new Date(Date.now() - 6 * 60_000).toISOString(),
        data: {},
      });
      expect((await post(stale, sign(secret, stale))).status).toBe(400);
      const fresh = JSON.stringify({ event: 'sms.delivered', event_id: 'evt_forged', timestamp: new Date().toISOString(), data: {} });
      expect((await post(fresh, sign('whsec_wrong', fresh))).status).toBe(401);
      expect(lines.some((l) => l.event_id === 'evt_old' || l.event_id === 'evt_forged')).toBe(false);
    } finally {
      child.kill();
    }
  });

  it('when a replica runs with the production address rules, then 30 private forms are refused at creation and a private address is refused again at delivery time', async () => {
    const port = await freePort();
    const healthPort = await freePort();
    const schema = 'webhook_guarded';
    const guarded = new ServiceProcess({
      name: 'webhook',
      args: [path.join(REPO_ROOT, 'services/webhook/dist/main.js')],
      env: {
        DATABASE_URL: system.stack.databaseUrl,
        DATABASE_SCHEMA: schema,
        NATS_URL: system.stack.natsUrl,
        // Streams of a prefix of its own: no service's user may make them, the administrator may.
        ...(system.stack.natsAdmin ? { NATS_USER: system.stack.natsAdmin.user, NATS_PASSWORD: system.stack.natsAdmin.password } : {}),
        NATS_PREFIX: `${system.stack.natsPrefix}g`,
        ACCOUNT_GRPC_ADDR: system.stack.accountAddress,
        SCHEDULER_GRPC_ADDR: system.stack.schedulerAddress,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(port),
        GRPC_HEALTH_PORT: String(healthPort),
        GRPC_TLS_CA_FILE: system.stack.grpcCredentials('webhook').caFile,
        GRPC_TLS_CERT_FILE: system.stack.grpcCredentials('webhook').certFile,
        GRPC_TLS_KEY_FILE: system.stack.grpcCredentials('webhook').keyFile,
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'false',
        WEBHOOK_EXTRA_CA_FILE: system.stack.certs.caCertFile,
      },
      logFile: path.join(system.stack.logDir, 'webhook-guarded.log'),
      ready: () => grpcServing(`127.0.0.1:${healthPort}`),
    });
    await guarded.start();
    const guard = createClient(webhookProto().WebhookService, `127.0.0.1:${port}`, { tls: system.stack.grpcCredentials('admin') });
    const db = new pg.Client({ connectionString: system.stack.databaseUrl });
    await db.connect();
    try {
      const c = await system.createClient();
      const p = receiver.port;
      const refused = [
        `https://127.0.0.1:${p}/`,
        `https://localhost:${p}/`,
        'https://10.1.2.3/',
        'https://172.20.0.1/',
        'https://192.168.0.1/',
        'https://169.254.169.254/latest/meta-data/',
        'https://100.100.100.200/',
        'https://0.0.0.0/',
        'https://224.0.0.1/',
        'https://255.255.255.255/',
        'https://2130706433/',
        'https://0x7f000001/',
        'https://0177.0.0.1/',
        'https://0x7f.0.0.1/',
        'https://127.1/',
        'https://017700000001/',
        'https://0xa9.0xfe.0xa9.0xfe/',
        'https://[::1]/',
        'https://[::]/',
        'https://[fe80::1]/',
        'https://[fd00::1]/',
        'https://[::ffff:127.0.0.1]/',
        'https://[::ffff:a9fe:a9fe]/',
        'https://[64:ff9b::a00:1]/',
        'https://[2002:a00:1::]/',
        'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
        'https://[ff02::1]/',
        'https://user:secret@hooks.example.com/',
        'http://hooks.example.com/',
        `https://localhost./`,
      ];
      expect(refused.length).toBeGreaterThanOrEqual(30);
      for (const url of refused) {
        await expect(
          guard.createEndpoint({ clientId: c.client_id, url, events: ['sms.sent'], mode: 'MODE_LIVE', description: '' }),
        ).rejects.toMatchObject({
          code: 'INVALID_WEBHOOK_URL',
        });
      }
      expect((await guard.listEndpoints({ clientId: c.client_id })).endpoints).toEqual([]);

      // A public address at creation that now leads to a private one (as a DNS change would) is refused when delivering.
      const e = await guard.createEndpoint({
        clientId: c.client_id,
        url: 'https://93.184.216.34/hook',
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      });
      await db.query(`UPDATE ${schema}.endpoints SET url = $1 WHERE endpoint_id = $2`, [receiver.url('/guarded'), e.endpointId]);
      const test = await guard.sendTestEvent({ clientId: c.client_id, endpointId: e.endpointId, event: 'sms.sent' });
      const deadline = Date.now() + 10_000;
      let log: webhook.Delivery__Output[] = [];
      while (Date.now() < deadline) {
        log = (await guard.listDeliveries({ clientId: c.client_id, eventId: test.eventId, endpointId: '', limit: 5, before: '' }))
          .deliveries;
        if (log[0]?.attempts.length) break;
        await sleep(100);
      }
      expect(log[0]!.attempts[0]).toMatchObject({ attempt: 1, httpStatus: 0, error: 'blocked address 127.0.0.1 (loopback)' });
      expect(receiver.at('/guarded')).toEqual([]);
    } finally {
      guard.close();
      await guarded.stop();
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.end();
    }
  });
});
