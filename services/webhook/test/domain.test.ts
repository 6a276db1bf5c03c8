import { createHmac } from 'node:crypto';
import type { PublicEvent } from '@smsgw/platform';
import { alertMail } from '../src/delivery/alerts';
import { parseKinds } from '../src/domain/event-kinds';
import { RetryPolicy } from '../src/domain/retry-policy';
import { destinationsOf, envelopeBody, type EndpointTarget } from '../src/domain/routing';
import { signBody } from '../src/domain/signature';
import { testEvent } from '../src/domain/test-event';

const event = (over: Partial<PublicEvent> & { routing?: PublicEvent['routing'] } = {}): PublicEvent => ({
  event: 'sms.delivered',
  event_id: 'evt_1',
  timestamp: '2026-11-23T10:00:00.000Z',
  data: { message_id: 'msg_1', status: 'delivered' },
  routing: { client_id: 'client_1', mode: 'live' },
  ...over,
});

const endpoint = (over: Partial<EndpointTarget>): EndpointTarget => ({
  endpoint_id: 'whe_1',
  client_id: 'client_1',
  mode: 'live',
  url: 'https://a.example/hook',
  events: ['sms.delivered'],
  enabled: true,
  ...over,
});

describe('routing', () => {
  const endpoints = [
    endpoint({ endpoint_id: 'whe_all', events: ['sms.sent', 'sms.delivered', 'sms.failed', 'device.connected'] }),
    endpoint({ endpoint_id: 'whe_failed', events: ['sms.failed'] }),
    endpoint({ endpoint_id: 'whe_test', mode: 'test' }),
    endpoint({ endpoint_id: 'whe_off', enabled: false }),
    endpoint({ endpoint_id: 'whe_other', client_id: 'client_2' }),
  ];

  it('when an SMS event has no webhook_url, then it goes to the enabled endpoints of its client and mode subscribed to its kind', () => {
    expect(destinationsOf(event(), endpoints).map((d) => d.key)).toEqual(['endpoint:whe_all']);
    expect(destinationsOf(event({ event: 'sms.failed' }), endpoints).map((d) => d.key)).toEqual([
      'endpoint:whe_all',
      'endpoint:whe_failed',
    ]);
    expect(destinationsOf(event({ routing: { client_id: 'client_1', mode: 'test' } }), endpoints).map((d) => d.key)).toEqual([
      'endpoint:whe_test',
    ]);
  });

  it('when an SMS event has a webhook_url, then it goes there only, whatever the endpoints', () => {
    const e = event({ routing: { client_id: 'client_1', mode: 'live', webhook_url: 'https://m.example/cb' } });
    expect(destinationsOf(e, endpoints)).toEqual([{ kind: 'message-url', key: 'url:https://m.example/cb', url: 'https://m.example/cb' }]);
  });

  it('when a device event carries a webhook_url by mistake, then the global endpoints still get it', () => {
    const e = event({ event: 'device.connected', routing: { client_id: 'client_1', mode: 'live', webhook_url: 'https://m.example/cb' } });
    expect(destinationsOf(e, endpoints).map((d) => d.key)).toEqual(['endpoint:whe_all']);
  });

  it('when the envelope of an attempt is built, then it has exactly event, event_id, the attempt time as timestamp, and data', () => {
    const e = event();
    expect(JSON.parse(envelopeBody(e.event, e.event_id, new Date('2026-11-23T10:05:00Z'), JSON.stringify(e.data)))).toEqual({
      event: 'sms.delivered',
      event_id: 'evt_1',
      timestamp: '2026-11-23T10:05:00.000Z',
      data: { message_id: 'msg_1', status: 'delivered' },
    });
  });

  it('when kinds are parsed, then unknown or empty lists are refused and duplicates folded in canonical order', () => {
    expect(parseKinds(['sms.failed', ' sms.sent', 'sms.failed'])).toEqual(['sms.sent', 'sms.failed']);
    expect(parseKinds([])).toBeUndefined();
    expect(parseKinds(['sms.sent', 'sms.read'])).toBeUndefined();
  });
});

describe('signature, retries, samples and alerts', () => {
  it('when a body is signed, then the signature is the hex HMAC-SHA256 of its UTF-8 bytes', () => {
    const body = '{"text":"Café ✓"}';
    expect(signBody('whsec_x', body)).toBe(createHmac('sha256', 'whsec_x').update(Buffer.from(body, 'utf8')).digest('hex'));
    expect(signBody('whsec_x', body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when attempts fail, then attempt 2 comes 1 minute after attempt 1, attempt 3 five minutes after attempt 2, and then none', () => {
    const policy = new RetryPolicy([60_000, 300_000]);
    const t = new Date('2026-11-23T10:00:00Z');
    expect(policy.maxAttempts).toBe(3);
    expect(policy.nextAttemptAt(1, t)?.toISOString()).toBe('2026-11-23T10:01:00.000Z');
    expect(policy.nextAttemptAt(2, t)?.toISOString()).toBe('2026-11-23T10:05:00.000Z');
    expect(policy.nextAttemptAt(3, t)).toBeUndefined();
  });

  it('when a test event is made, then it has the shape of the real kind and says it is a test', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    const failed = testEvent('sms.failed', { eventId: 'evt_t', clientId: 'client_1', mode: 'live' }, now);
    expect(failed).toMatchObject({
      event: 'sms.failed',
      event_id: 'evt_t',
      data: { status: 'failed', error: { code: 'INVALID_NUMBER' }, metadata: { test_event: true } },
    });
    const connected = testEvent('device.connected', { eventId: 'evt_d', clientId: 'client_1', mode: 'live' }, now);
    expect(Object.keys(connected.data).sort()).toEqual(['at', 'client_id', 'device_id', 'name', 'reason', 'test_event']);
  });

  it('when an alert is written, then it names the endpoint, the event and the last error', () => {
    const mail = alertMail(
      {
        delivery_id: 'dlv_1',
        event_id: 'evt_9',
        kind: 'sms.failed',
        client_id: 'client_1',
        endpoint_id: 'whe_5',
        url: 'https://a.example/h',
        attempts: 3,
        last_error: 'timeout',
        last_status: null,
        batch_id: null,
      },
      'Acme',
    );
    expect(mail.subject).toContain('whe_5');
    expect(mail.text).toContain('evt_9');
    expect(mail.text).toContain('https://a.example/h');
    expect(mail.text).toContain('Last error: timeout');
  });
});
