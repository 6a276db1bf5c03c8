import { createHmac, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { newId, type AppError, type PublicEvent } from '@smsgw/platform';
import { ensureCerts, startMailCatcher, type Certs, type MailCatcher } from '@smsgw/stack';
import { eventually, randomHex, sleep, thrownBy } from '@smsgw/testing';
import { Receiver } from './support/receiver';
import { startWebhookWithScheduler, type RunningWebhookService } from './support/service';

const CLIENT = 'client_attempts';
const OWNER = 'owner-attempts@example.com';
const SIGNING_SECRET = 'whsec_client_signing_secret';
/** Waits before attempts 2 and 3: three attempts in all. */
const DELAYS_MS = [1000, 2000];

const signatureOf = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');

describe('webhook attempts: the real service posts to a real HTTPS receiver, retries through the real scheduler, gives up and alerts', () => {
  let certs: Certs;
  let receiver: Receiver;
  let mail: MailCatcher;
  let service: RunningWebhookService;

  beforeAll(async () => {
    certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-webhook-test-certs'));
    receiver = await Receiver.start(certs);
    mail = await startMailCatcher();
    service = await startWebhookWithScheduler(
      { clientId: CLIENT, email: OWNER, name: 'Boulangerie Martin', signingSecret: SIGNING_SECRET },
      {
        WEBHOOK_RETRY_DELAYS_MS: DELAYS_MS.join(','),
        WEBHOOK_EXTRA_CA_FILE: certs.caCertFile,
        WEBHOOK_TIMEOUT_MS: '2000',
        SMTP_URL: mail.url,
      },
    );
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
    await mail?.stop();
  });

  /** An endpoint of the client's, subscribed to `sms.delivered` in live mode, posting to `at` on the receiver. */
  async function endpoint(at: string): Promise<{ endpointId: string; secret: string }> {
    const created = await service.client.createEndpoint({
      clientId: CLIENT,
      url: receiver.url(at),
      events: ['sms.delivered'],
      mode: 'MODE_LIVE',
      description: at,
    });
    return { endpointId: created.endpointId, secret: created.secret };
  }

  /** Publishes `sms.delivered` as the message service does. */
  async function publishDelivered(routing: Partial<PublicEvent['routing']> = {}): Promise<PublicEvent> {
    const event: PublicEvent = {
      event: 'sms.delivered',
      event_id: newId('evt'),
      timestamp: new Date().toISOString(),
      data: { message_id: newId('msg'), to: '+33612345678', delivered_at: new Date().toISOString() },
      routing: { client_id: CLIENT, mode: 'live', ...routing },
    };
    const nats = service.sandbox.nats!;
    await nats.js.publish(nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });
    return event;
  }

  const deliveriesOf = async (eventId: string) =>
    (await service.client.listDeliveries({ clientId: CLIENT, eventId, limit: 10 })).deliveries;

  it('when an event reaches an enabled endpoint, then the receiver gets one POST whose headers describe it and whose signature verifies with the endpoint secret', async () => {
    const at = `/signed-${randomHex(3)}`;
    const { secret } = await endpoint(at);

    const event = await publishDelivered();
    const [request] = await receiver.waitFor(at, 1);

    const body = JSON.parse(request!.raw) as Record<string, unknown>;
    expect(body).toEqual({ event: 'sms.delivered', event_id: event.event_id, timestamp: expect.any(String), data: event.data });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'SMSGateway-Webhook/1.0',
      'x-webhook-event': 'sms.delivered',
      'x-webhook-event-id': event.event_id,
      'x-webhook-delivery-id': expect.stringMatching(/^dlv_/),
      'x-webhook-attempt': '1',
    });
    expect(request!.headers['x-webhook-signature']).toBe(signatureOf(secret, request!.raw));
    expect(request!.headers['x-webhook-signature']).not.toBe(signatureOf('whsec_other', request!.raw));
    const deliveries = await eventually(async () => {
      const found = await deliveriesOf(event.event_id);
      return found[0]?.state === 'succeeded' && found;
    });
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ httpStatus: 200, attempt: 1, deliveryId: request!.headers['x-webhook-delivery-id'] });
  });

  it('when a message has its own webhook URL, then its event goes there, signed with the client signing secret', async () => {
    const at = `/message-url-${randomHex(3)}`;

    const event = await publishDelivered({ webhook_url: receiver.url(at) });
    const [request] = await receiver.waitFor(at, 1);

    expect(JSON.parse(request!.raw)).toMatchObject({ event: 'sms.delivered', event_id: event.event_id });
    expect(request!.headers['x-webhook-signature']).toBe(signatureOf(SIGNING_SECRET, request!.raw));
  });

  it('when the receiver answers 500 twice, then the same event is posted again after each delay, signed anew, and the delivery ends succeeded', async () => {
    const at = `/flaky-${randomHex(3)}`;
    const { secret } = await endpoint(at);
    receiver.on(at, (n) => (n <= 2 ? 500 : 200));

    const event = await publishDelivered();
    const requests = await receiver.waitFor(at, 3, 20_000);

    expect(requests.map((r) => r.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(requests.map((r) => r.headers['x-webhook-delivery-id'])).size).toBe(1);
    for (const r of requests) {
      expect(JSON.parse(r.raw)).toMatchObject({ event_id: event.event_id });
      expect(r.headers['x-webhook-signature']).toBe(signatureOf(secret, r.raw));
    }
    // Each retry waits at least its delay after the failure before it.
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(DELAYS_MS[0]!);
    expect(requests[2]!.at - requests[1]!.at).toBeGreaterThanOrEqual(DELAYS_MS[1]!);
    const [delivery] = await eventually(async () => {
      const found = await deliveriesOf(event.event_id);
      return found[0]?.state === 'succeeded' && found;
    });
    expect(delivery!.attempts.map((a) => [a.attempt, a.httpStatus])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    await sleep(500);
    expect(receiver.at(at)).toHaveLength(3);
  }, 30_000);

  it('when the receiver always answers 500, then after the last attempt the delivery is dropped, nothing more is posted, and the owner gets one alert e-mail', async () => {
    const at = `/down-${randomHex(3)}`;
    const { endpointId } = await endpoint(at);
    receiver.on(at, () => 500);

    const event = await publishDelivered();
    await receiver.waitFor(at, 3, 20_000);

    const [delivery] = await eventually(async () => {
      const found = await deliveriesOf(event.event_id);
      return found[0]?.state === 'failed' && found;
    }, 10_000);
    expect(delivery).toMatchObject({ attempt: 3, httpStatus: 500, nextAttemptAt: '' });
    const alert = await mail.waitFor((m) => m.raw.includes(event.event_id), 10_000);
    expect(alert.to).toEqual([OWNER]);
    expect(alert.subject).toBe(`Webhook delivery failed: sms.delivered to ${endpointId}`);
    expect(alert.raw).toContain('It was tried 3 times and has been dropped.');
    await sleep(DELAYS_MS[1]! + 500);
    expect(receiver.at(at)).toHaveLength(3);
    expect(mail.mails.filter((m) => m.raw.includes(event.event_id))).toHaveLength(1);
  }, 30_000);

  it('when an endpoint is disabled, then events are not posted to it while an enabled endpoint of the same client gets them', async () => {
    const on = `/enabled-${randomHex(3)}`;
    const off = `/disabled-${randomHex(3)}`;
    await endpoint(on);
    const disabled = await endpoint(off);
    await service.client.updateEndpoint({
      clientId: CLIENT,
      endpointId: disabled.endpointId,
      url: '',
      events: [],
      setEnabled: true,
      enabled: false,
      setDescription: false,
      description: '',
    });

    const event = await publishDelivered();
    await receiver.waitFor(on, 1);
    await sleep(500);

    expect(receiver.at(off)).toEqual([]);
    expect((await deliveriesOf(event.event_id)).map((d) => d.endpointId)).not.toContain(disabled.endpointId);
  });

  it('when SendTestEvent is called, then the endpoint gets a signed test event, and ReplayEvent posts the same event again as a new delivery', async () => {
    const at = `/test-event-${randomHex(3)}`;
    const { endpointId, secret } = await endpoint(at);

    const sent = await service.client.sendTestEvent({ clientId: CLIENT, endpointId, event: 'sms.delivered' });
    const [first] = await receiver.waitFor(at, 1);
    const replayed = await service.client.replayEvent({ clientId: CLIENT, eventId: sent.eventId, endpointId });
    const requests = await receiver.waitFor(at, 2);

    expect(first!.headers).toMatchObject({ 'x-webhook-event-id': sent.eventId, 'x-webhook-delivery-id': sent.deliveryId });
    expect(replayed.deliveries).toHaveLength(1);
    expect(replayed.deliveries[0]).toMatchObject({ replayOf: sent.deliveryId });
    expect(requests[1]!.headers).toMatchObject({
      'x-webhook-event-id': sent.eventId,
      'x-webhook-delivery-id': replayed.deliveries[0]!.deliveryId,
    });
    for (const r of requests) expect(r.headers['x-webhook-signature']).toBe(signatureOf(secret, r.raw));
  });

  it('when an endpoint URL is plain HTTP or the endpoint is unknown, then the handlers answer INVALID_WEBHOOK_URL and NOT_FOUND', async () => {
    const refused = await thrownBy<AppError>(
      service.client.createEndpoint({
        clientId: CLIENT,
        url: 'http://127.0.0.1:9/hook',
        events: ['sms.sent'],
        mode: 'MODE_LIVE',
        description: '',
      }),
    );
    const unknown = await thrownBy<AppError>(
      service.client.sendTestEvent({ clientId: CLIENT, endpointId: `whe_${randomBytes(6).toString('hex')}`, event: 'sms.sent' }),
    );

    expect(refused.code).toBe('INVALID_WEBHOOK_URL');
    expect(unknown.code).toBe('NOT_FOUND');
  });
});
