import { createHmac } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { newId, type PublicEvent } from '@smsgw/platform';
import { ensureCerts, startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { eventually, randomHex, sleep } from '@smsgw/testing';
import { DeliveryRepository } from '../src/data/delivery.repository';
import { Receiver, type Received } from './support/receiver';
import { startWebhookWithScheduler, type RunningWebhookService } from './support/service';

// Endpoints that take their events in batches: the real service, a real HTTPS receiver, the real
// scheduler for the retries, a real SMTP server for the alert.

const CLIENT = 'client_batched';
const OWNER = 'owner-batched@example.com';
/** Waits before attempts 2 and 3: three attempts in all. */
const DELAYS_MS = [1000, 2000];

const signatureOf = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');

interface Envelope {
  event: string;
  event_id: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe('batched endpoints: up to 100 events in one signed POST, retried whole on schedule', () => {
  let receiver: Receiver;
  let mail: MailCatcher;
  let service: RunningWebhookService;

  beforeAll(async () => {
    const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-webhook-test-certs'));
    receiver = await Receiver.start(certs);
    mail = await startMailCatcher();
    service = await startWebhookWithScheduler(
      { clientId: CLIENT, email: OWNER, name: 'Batches & Co', signingSecret: 'whsec_client_signing_secret' },
      {
        WEBHOOK_RETRY_DELAYS_MS: DELAYS_MS.join(','),
        WEBHOOK_EXTRA_CA_FILE: certs.caCertFile,
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_SWEEP_INTERVAL_MS: '500',
        SMTP_URL: mail.url,
      },
    );
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
    await mail?.stop();
  });

  async function endpoint(at: string, batch: boolean, events = ['sms.sent', 'sms.delivered']) {
    const created = await service.client.createEndpoint({
      clientId: CLIENT,
      url: receiver.url(at),
      events,
      mode: 'MODE_LIVE',
      description: at,
      batch,
    });
    expect(created.batch).toBe(batch);
    return { endpointId: created.endpointId, secret: created.secret };
  }

  const smsEvent = (kind: 'sms.sent' | 'sms.delivered', routing: Partial<PublicEvent['routing']> = {}): PublicEvent => ({
    event: kind,
    event_id: newId('evt'),
    timestamp: new Date().toISOString(),
    data: { message_id: newId('msg'), status: kind.slice(4), to: '+33612345678', sim: null, metadata: { order: 'A-17' } },
    routing: { client_id: CLIENT, mode: 'live', ...routing },
  });

  /** Publishes events as the message service does: many in one message, `perMessage` a message. */
  async function publish(events: PublicEvent[], perMessage = 25): Promise<void> {
    const nats = service.sandbox.nats!;
    for (let i = 0; i < events.length; i += perMessage) {
      await nats.js.publish(nats.names.eventBatch('message'), JSON.stringify({ events: events.slice(i, i + perMessage) }), {
        msgID: randomHex(),
      });
    }
  }

  const envelopes = (r: Received) => JSON.parse(r.raw) as Envelope[];
  const eventIds = (rs: Received[]) => rs.flatMap((r) => envelopes(r).map((e) => e.event_id));

  async function deliveriesOf(endpointId: string) {
    const all = [];
    let before = '';
    for (;;) {
      const { deliveries } = await service.client.listDeliveries({ clientId: CLIENT, endpointId, eventId: '', limit: 100, before });
      all.push(...deliveries);
      if (deliveries.length < 100) return all;
      before = deliveries[deliveries.length - 1]!.deliveryId;
    }
  }

  it('when 250 events reach a batched endpoint together, then they arrive in three POSTs, each a JSON array of the usual envelopes signed with the endpoint secret', async () => {
    const at = `/batched-${randomHex(3)}`;
    const { endpointId, secret } = await endpoint(at, true);
    const events = Array.from({ length: 125 }, () => [smsEvent('sms.sent'), smsEvent('sms.delivered')]).flat();

    await publish(events);
    await eventually(async () => eventIds(receiver.at(at)).length >= 250, 20_000, 'the 250 events');
    await sleep(1500);

    // Two full batches leave at once (side by side, in either order), the rest at the end of its window.
    const order = new Map(events.map((e, i) => [e.event_id, i]));
    const posts = [...receiver.at(at)].sort((a, b) => order.get(envelopes(a)[0]!.event_id)! - order.get(envelopes(b)[0]!.event_id)!);
    expect(posts.map((p) => envelopes(p).length)).toEqual([100, 100, 50]);
    // Every event once, in the order of the events.
    expect(eventIds(posts)).toEqual(events.map((e) => e.event_id));
    for (const p of posts) {
      expect(p.headers['x-webhook-signature']).toBe(signatureOf(secret, p.raw));
      expect(p.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'SMSGateway-Webhook/1.0',
        'x-webhook-batch-size': String(envelopes(p).length),
        'x-webhook-attempt': '1',
      });
      expect(p.headers['traceparent']).toEqual(expect.any(String));
      for (const header of ['x-webhook-event', 'x-webhook-event-id', 'x-webhook-delivery-id']) expect(p.headers[header]).toBeUndefined();
      // Each element is exactly the envelope one event alone gets, signed at this attempt.
      const signedAt = envelopes(p)[0]!.timestamp;
      for (const e of envelopes(p)) {
        const sent = events.find((x) => x.event_id === e.event_id)!;
        expect(e).toEqual({ event: sent.event, event_id: sent.event_id, timestamp: signedAt, data: sent.data });
        expect(Object.keys(e)).toEqual(['event', 'event_id', 'timestamp', 'data']);
      }
      expect(Math.abs(Date.parse(signedAt) - p.at)).toBeLessThan(1000);
    }
    // The delivery log still has one delivery per event, each with its attempt.
    const log = await eventually(async () => {
      const found = await deliveriesOf(endpointId);
      return found.length === 250 && found.every((d) => d.state === 'succeeded') && found;
    }, 10_000);
    expect(log.every((d) => d.attempts.length === 1 && d.attempts[0]!.httpStatus === 200)).toBe(true);
    expect(new Set(log.map((d) => d.eventId))).toEqual(new Set(events.map((e) => e.event_id)));
  }, 40_000);

  it("when a batched endpoint's receiver answers 500 once, then the whole batch is posted again after the retry delay, signed anew, and each event's log shows both attempts", async () => {
    const at = `/flaky-batch-${randomHex(3)}`;
    const { endpointId, secret } = await endpoint(at, true);
    receiver.on(at, (n) => (n === 1 ? 500 : 200));
    const events = Array.from({ length: 30 }, () => smsEvent('sms.sent'));

    await publish(events, 10);
    const [failed, retried] = await receiver.waitFor(at, 2, 20_000);

    expect(eventIds([failed!])).toEqual(events.map((e) => e.event_id));
    expect(eventIds([retried!])).toEqual(eventIds([failed!]));
    expect([failed!.headers['x-webhook-attempt'], retried!.headers['x-webhook-attempt']]).toEqual(['1', '2']);
    expect(retried!.headers['x-webhook-batch-size']).toBe('30');
    expect(retried!.headers['x-webhook-signature']).toBe(signatureOf(secret, retried!.raw));
    expect(envelopes(retried!)[0]!.timestamp).not.toBe(envelopes(failed!)[0]!.timestamp);
    expect(retried!.at - failed!.at).toBeGreaterThanOrEqual(DELAYS_MS[0]!);
    expect(retried!.at - failed!.at).toBeLessThan(DELAYS_MS[0]! + 2000);
    const log = await eventually(async () => {
      const found = await deliveriesOf(endpointId);
      return found.length === 30 && found.every((d) => d.state === 'succeeded') && found;
    }, 10_000);
    for (const d of log) {
      expect(d.attempts.map((a) => [a.attempt, a.httpStatus])).toEqual([
        [1, 500],
        [2, 200],
      ]);
    }
    await sleep(DELAYS_MS[1]! + 500);
    expect(receiver.at(at)).toHaveLength(2);
  }, 40_000);

  it('when a batch fails every attempt, then it is posted three times whole, dropped, and the owner gets one alert e-mail naming each of its events', async () => {
    const at = `/down-batch-${randomHex(3)}`;
    const { endpointId } = await endpoint(at, true);
    receiver.on(at, () => 503);
    const events = Array.from({ length: 5 }, () => smsEvent('sms.delivered'));

    await publish(events, 5);
    const posts = await receiver.waitFor(at, 3, 20_000);

    expect(posts.map((p) => p.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    for (const p of posts) expect(eventIds([p])).toEqual(events.map((e) => e.event_id));
    const alert = await mail.waitFor((m) => m.raw.includes(endpointId), 10_000);
    // Quoted-printable may break a long line anywhere: undo its soft breaks before reading.
    const text = alert.raw.replace(/=\r?\n/g, '');
    expect(alert.to).toEqual([OWNER]);
    expect(alert.subject).toBe(`Webhook delivery failed: 5 events to ${endpointId}`);
    expect(text).toContain('It was tried 3 times and has been dropped.');
    for (const e of events) expect(text).toContain(e.event_id);
    const log = await deliveriesOf(endpointId);
    expect(log.map((d) => [d.state, d.attempt, d.httpStatus])).toEqual(events.map(() => ['failed', 3, 503]));
    await sleep(DELAYS_MS[1]! + 1000);
    expect(receiver.at(at)).toHaveLength(3);
    expect(mail.mails.filter((m) => m.raw.includes(endpointId))).toHaveLength(1);
  }, 40_000);

  it("when a client has a batched endpoint, then a message's own webhook_url and an unbatched endpoint still get one event a POST, as the specification says", async () => {
    const batched = `/batched-too-${randomHex(3)}`;
    const single = `/single-${randomHex(3)}`;
    const own = `/own-${randomHex(3)}`;
    await endpoint(batched, true);
    const { secret } = await endpoint(single, false);
    const events = [smsEvent('sms.sent'), smsEvent('sms.delivered')];
    const ownEvents = [
      smsEvent('sms.sent', { webhook_url: receiver.url(own) }),
      smsEvent('sms.delivered', { webhook_url: receiver.url(own) }),
    ];

    await publish([...events, ...ownEvents]);
    await receiver.waitFor(single, 2);
    await receiver.waitFor(own, 2);
    await receiver.waitFor(batched, 1);
    await sleep(1500);

    for (const r of [...receiver.at(single), ...receiver.at(own)]) {
      const body = JSON.parse(r.raw) as Envelope;
      expect(Array.isArray(body)).toBe(false);
      expect(Object.keys(body)).toEqual(['event', 'event_id', 'timestamp', 'data']);
      expect(r.headers['x-webhook-event-id']).toBe(body.event_id);
      expect(r.headers['x-webhook-batch-size']).toBeUndefined();
    }
    expect(receiver.at(single).map((r) => r.headers['x-webhook-signature'])).toEqual(
      receiver.at(single).map((r) => signatureOf(secret, r.raw)),
    );
    expect(eventIds(receiver.at(batched))).toEqual(events.map((e) => e.event_id));
    expect(receiver.at(own).map((r) => (JSON.parse(r.raw) as Envelope).event_id)).toEqual(ownEvents.map((e) => e.event_id));
  });

  it('when batching is turned on for an endpoint, then its test events and replays come as arrays of one; turned off, one event a POST again', async () => {
    const at = `/toggled-${randomHex(3)}`;
    const { endpointId, secret } = await endpoint(at, false);
    const change = {
      clientId: CLIENT,
      endpointId,
      url: '',
      events: [],
      setEnabled: false,
      enabled: false,
      setDescription: false,
      description: '',
    };

    const on = await service.client.updateEndpoint({ ...change, setBatch: true, batch: true });
    const test = await service.client.sendTestEvent({ clientId: CLIENT, endpointId, event: 'sms.delivered' });
    const [tested] = await receiver.waitFor(at, 1);
    await service.client.replayEvent({ clientId: CLIENT, eventId: test.eventId, endpointId });
    const [, replayed] = await receiver.waitFor(at, 2);
    const off = await service.client.updateEndpoint({ ...change, setBatch: true, batch: false });
    await service.client.replayEvent({ clientId: CLIENT, eventId: test.eventId, endpointId });
    const [, , alone] = await receiver.waitFor(at, 3);

    expect([on.batch, off.batch]).toEqual([true, false]);
    expect((await service.client.listEndpoints({ clientId: CLIENT })).endpoints.find((e) => e.endpointId === endpointId)!.batch).toBe(
      false,
    );
    for (const r of [tested!, replayed!]) {
      expect(envelopes(r).map((e) => e.event_id)).toEqual([test.eventId]);
      expect(r.headers['x-webhook-batch-size']).toBe('1');
      expect(r.headers['x-webhook-signature']).toBe(signatureOf(secret, r.raw));
    }
    expect(JSON.parse(alone!.raw)).toMatchObject({ event: 'sms.delivered', event_id: test.eventId });
    expect(alone!.headers['x-webhook-event-id']).toBe(test.eventId);
  });

  it('when a replica died holding a batch (its deliveries leased, no outcome written), then once the leases run out the sweep posts them again, together, and none is lost', async () => {
    const at = `/orphaned-${randomHex(3)}`;
    const { endpointId, secret } = await endpoint(at, true);
    // What the dead replica left: its events stored, their deliveries leased to it for a second, never attempted.
    const dead = new DeliveryRepository(service.pool, 1000);
    const events = Array.from({ length: 40 }, () => smsEvent('sms.sent'));
    await dead.recordEvents(
      events.map((e) => ({
        eventId: e.event_id,
        clientId: CLIENT,
        mode: 'live' as const,
        kind: e.event,
        data: JSON.stringify(e.data),
        traceparent: null,
        destinations: [{ deliveryId: newId('dlv'), key: `endpoint:${endpointId}`, url: receiver.url(at), endpointId, secret, batch: true }],
      })),
    );
    // Their first attempt was due long enough ago for the sweep (it leaves attempts due in the last 10 s to their timers).
    await service.pool.query(`UPDATE deliveries SET next_attempt_at = now() - interval '1 minute' WHERE endpoint_id = $1`, [endpointId]);

    const [post] = await receiver.waitFor(at, 1, 15_000);

    expect(eventIds([post!])).toEqual(events.map((e) => e.event_id));
    expect(post!.headers['x-webhook-signature']).toBe(signatureOf(secret, post!.raw));
    const log = await eventually(async () => {
      const found = await deliveriesOf(endpointId);
      return found.length === 40 && found.every((d) => d.state === 'succeeded') && found;
    }, 10_000);
    expect(log.every((d) => d.attempt === 1)).toBe(true);
    await sleep(1000);
    expect(receiver.at(at)).toHaveLength(1);
  });
});
