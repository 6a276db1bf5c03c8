import {
  MemorySeenEvents,
  signWebhook,
  verifyWebhook,
  verifyWebhookBatch,
  WebhookDuplicateError,
  WebhookPayloadError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
} from '../src';
import type { OfflineEventData, ReceivedEventData, SeenEvents, SmsError, SmsErrorCode, WebhookEvent } from '../src';

const SECRET = 'whsec_test';
const NOW = Date.parse('2030-01-01T12:00:00.000Z');
const body = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: 'sms.delivered',
    event_id: 'evt_1',
    timestamp: '2030-01-01T12:00:00.000Z',
    data: { message_id: 'msg_1', status: 'delivered', to: '+33612345678', metadata: {} },
    ...over,
  });

describe('the webhook helper', () => {
  it('when an sms.received event is verified, then its data is the received SMS, sim a number or null', async () => {
    const data = {
      id: 'rcv_01JD3Z8Q6V5N4W2K9T7R1B0C3E',
      from: '+33698765432',
      device_id: 'device_1',
      sim: 2,
      message: 'STOP',
      received_at: '2030-01-01T11:59:58.000Z',
    };
    for (const sim of [2, null]) {
      const raw = body({ event: 'sms.received', data: { ...data, sim } });
      const event = await verifyWebhook(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW });
      if (event.event !== 'sms.received') throw new Error(`not narrowed: ${event.event}`);
      // The union narrows on `event`: data is a ReceivedEventData here.
      const received: ReceivedEventData = event.data;
      expect(received).toEqual({ ...data, sim });
    }
  });

  it('when device.* events of the opt-in kinds are verified, then each narrows to its own data', async () => {
    const phone = { device_id: 'device_1', client_id: 'client_1', name: 'Shop phone' };
    const events = [
      {
        event: 'device.degraded',
        data: {
          ...phone,
          at: 'x',
          sim: 2,
          state: 'quarantined',
          reason: 'consecutive_failures',
          recent_results: { generic_failure: 5 },
          probe_after: 'y',
        },
      },
      { event: 'device.recovered', data: { ...phone, at: 'x', sim: 2, state: 'healthy', reason: 'probe', recent_results: { sent: 1 } } },
      { event: 'device.battery_low', data: { ...phone, battery: 12, charging: false, at: 'x' } },
      { event: 'device.offline', data: { ...phone, offline_since: '2030-01-01T11:00:00.000Z', threshold_seconds: 1800 } },
    ];
    const seen: string[] = [];
    for (const e of events) {
      const raw = body({ ...e, event_id: `evt_${e.event}` });
      const event: WebhookEvent = await verifyWebhook(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW });
      // Each branch reads fields only its kind has: the compiler checks them.
      switch (event.event) {
        case 'device.degraded':
          seen.push(`${event.data.reason} on SIM ${event.data.sim}, probe at ${event.data.probe_after}`);
          break;
        case 'device.recovered':
          seen.push(`released by ${event.data.reason}`);
          break;
        case 'device.battery_low':
          seen.push(`battery ${event.data.battery} %`);
          break;
        case 'device.offline': {
          const offline: OfflineEventData = event.data;
          seen.push(`offline since ${offline.offline_since} (${offline.threshold_seconds} s)`);
          break;
        }
        default:
          seen.push(`other: ${event.event}`);
      }
    }
    expect(seen).toEqual([
      'consecutive_failures on SIM 2, probe at y',
      'released by probe',
      'battery 12 %',
      'offline since 2030-01-01T11:00:00.000Z (1800 s)',
    ]);
  });

  it('when a message to an opted-out number fails, then its sms.failed carries OPTED_OUT, a failure code of the types', async () => {
    const error: SmsError = { code: 'OPTED_OUT', message: 'Le destinataire a demandé à ne plus recevoir de SMS de ce compte.' };
    const raw = body({ event: 'sms.failed', data: { message_id: 'msg_1', status: 'failed', to: '+33698765432', error, metadata: {} } });
    const event = await verifyWebhook(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW });
    if (event.event !== 'sms.failed') throw new Error(`not narrowed: ${event.event}`);
    const code: SmsErrorCode | undefined = event.data.error?.code;
    expect(code).toBe('OPTED_OUT');
  });

  it('when the body is signed with the secret, then the event comes back parsed', async () => {
    const raw = body();
    const event = await verifyWebhook(Buffer.from(raw), signWebhook(raw, SECRET), SECRET, { now: () => NOW });
    expect(event).toMatchObject({ event: 'sms.delivered', event_id: 'evt_1', data: { message_id: 'msg_1' } });
    expect(await verifyWebhook(raw, [signWebhook(raw, SECRET).toUpperCase()], SECRET, { now: () => NOW })).toMatchObject({
      event_id: 'evt_1',
    });
  });

  it('when the signature, the body or the secret differ, or the header is missing, then WebhookSignatureError', async () => {
    const raw = body();
    const sig = signWebhook(raw, SECRET);
    const refusals = [
      verifyWebhook(raw.replace('msg_1', 'msg_2'), sig, SECRET, { now: () => NOW }),
      verifyWebhook(raw, sig, 'whsec_other', { now: () => NOW }),
      verifyWebhook(raw, undefined, SECRET, { now: () => NOW }),
      verifyWebhook(raw, 'zz', SECRET, { now: () => NOW }),
      verifyWebhook(raw, sig.slice(0, 32), SECRET, { now: () => NOW }),
      // The same JSON, serialised again: not the bytes that were signed.
      verifyWebhook(JSON.stringify(JSON.parse(raw), null, 1), sig, SECRET, { now: () => NOW }),
    ];
    for (const r of refusals) {
      const err = (await r.catch((e: unknown) => e)) as WebhookVerificationError;
      expect(err).toBeInstanceOf(WebhookSignatureError);
      expect(err.reason).toBe('signature');
    }
  });

  it('when the delivery was signed more than the tolerance away from now, then WebhookTimestampError', async () => {
    const raw = body();
    const sig = signWebhook(raw, SECRET);
    await expect(verifyWebhook(raw, sig, SECRET, { now: () => NOW + 301_000 })).rejects.toBeInstanceOf(WebhookTimestampError);
    await expect(verifyWebhook(raw, sig, SECRET, { now: () => NOW - 301_000 })).rejects.toBeInstanceOf(WebhookTimestampError);
    await expect(verifyWebhook(raw, sig, SECRET, { now: () => NOW + 299_000 })).resolves.toMatchObject({ event_id: 'evt_1' });
    await expect(verifyWebhook(raw, sig, SECRET, { now: () => NOW + 500_000, toleranceSeconds: 600 })).resolves.toMatchObject({
      event_id: 'evt_1',
    });
  });

  it('when a signed body is not an event, then WebhookPayloadError', async () => {
    for (const raw of ['not json', '[1]', body({ event_id: undefined }), body({ timestamp: 5 }), body({ event: '' })]) {
      await expect(verifyWebhook(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW })).rejects.toBeInstanceOf(WebhookPayloadError);
    }
  });

  it('when the same event arrives twice, then the second is a WebhookDuplicateError carrying the event, and a refused delivery is not remembered', async () => {
    const seen = new MemorySeenEvents();
    const raw = body();
    const sig = signWebhook(raw, SECRET);
    await expect(verifyWebhook(raw, 'bad', SECRET, { now: () => NOW, seen })).rejects.toBeInstanceOf(WebhookSignatureError);
    await expect(verifyWebhook(raw, sig, SECRET, { now: () => NOW + 400_000, seen })).rejects.toBeInstanceOf(WebhookTimestampError);
    await verifyWebhook(raw, sig, SECRET, { now: () => NOW, seen });
    const dup = (await verifyWebhook(raw, sig, SECRET, { now: () => NOW, seen }).catch((e: unknown) => e)) as WebhookDuplicateError;
    expect(dup).toBeInstanceOf(WebhookDuplicateError);
    expect(dup.event.event_id).toBe('evt_1');
    const other = body({ event_id: 'evt_2' });
    await expect(verifyWebhook(other, signWebhook(other, SECRET), SECRET, { now: () => NOW, seen })).resolves.toMatchObject({
      event_id: 'evt_2',
    });
  });

  it('when an asynchronous store is given (Redis SET NX), then its answer decides', async () => {
    const store = new Set<string>();
    const seen = { add: async (id: string) => (store.has(id) ? false : (store.add(id), true)) };
    const raw = body();
    const sig = signWebhook(raw, SECRET);
    await verifyWebhook(raw, sig, SECRET, { now: () => NOW, seen });
    await expect(verifyWebhook(raw, sig, SECRET, { now: () => NOW, seen })).rejects.toBeInstanceOf(WebhookDuplicateError);
  });

  it('when remembered ids are older than the TTL or too many, then the oldest are forgotten', () => {
    let now = 0;
    const seen = new MemorySeenEvents(1000, 3, () => now);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('a')).toBe(false);
    now = 1500;
    expect(seen.add('a')).toBe(true);
    expect(seen.add('b')).toBe(true);
    expect(seen.add('c')).toBe(true);
    expect(seen.add('d')).toBe(true);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('d')).toBe(false);
  });

  it('when the secret is empty, then it refuses to check anything', async () => {
    await expect(verifyWebhook(body(), 'x', '')).rejects.toThrow(TypeError);
  });
});

const envelope = (eventId: string, over: Record<string, unknown> = {}) => ({
  event: 'sms.sent',
  event_id: eventId,
  timestamp: '2030-01-01T12:00:00.000Z',
  data: { message_id: `msg_${eventId}`, status: 'sent', to: '+33612345678', sim: null, metadata: {} },
  ...over,
});
const batch = (...events: unknown[]) => JSON.stringify(events);
/** A store that remembers what it was asked, to show what a refused batch recorded. */
const recordingStore = () => {
  const ids: string[] = [];
  const inner = new MemorySeenEvents();
  const seen: SeenEvents = { add: (id) => (ids.push(id), inner.add(id)) };
  return { ids, seen };
};

describe('the batched webhook helper', () => {
  it('when a batch is signed with the secret, then its events come back parsed, in the order of the body', async () => {
    const raw = batch(
      envelope('evt_a'),
      envelope('evt_b', { event: 'sms.delivered' }),
      envelope('evt_c', {
        event: 'device.connected',
        data: { device_id: 'device_1', client_id: 'client_1', name: 'Pixel', at: '', reason: '' },
      }),
    );
    const events = await verifyWebhookBatch(Buffer.from(raw), signWebhook(raw, SECRET), SECRET, { now: () => NOW });
    expect(events.map((e) => [e.event, e.event_id])).toEqual([
      ['sms.sent', 'evt_a'],
      ['sms.delivered', 'evt_b'],
      ['device.connected', 'evt_c'],
    ]);
    const [first] = events;
    if (first!.event !== 'sms.sent') throw new Error(`not narrowed: ${first!.event}`);
    expect(first!.data.message_id).toBe('msg_evt_a');
    const again = await verifyWebhookBatch(raw, [signWebhook(raw, SECRET).toUpperCase()], SECRET, { now: () => NOW });
    expect(again).toHaveLength(3);
  });

  it('when the signature, an event of the body or the secret differ, or the header is missing, then WebhookSignatureError and nothing is recorded', async () => {
    const raw = batch(envelope('evt_a'), envelope('evt_b'));
    const sig = signWebhook(raw, SECRET);
    const { ids, seen } = recordingStore();
    const opts = { now: () => NOW, seen };
    const refusals = [
      verifyWebhookBatch(raw.replace('msg_evt_b', 'msg_evt_x'), sig, SECRET, opts),
      verifyWebhookBatch(batch(envelope('evt_a')), sig, SECRET, opts),
      verifyWebhookBatch(raw, sig, 'whsec_other', opts),
      verifyWebhookBatch(raw, undefined, SECRET, opts),
      verifyWebhookBatch(raw, 'zz', SECRET, opts),
      verifyWebhookBatch(JSON.stringify(JSON.parse(raw), null, 1), sig, SECRET, opts),
    ];
    for (const r of refusals) {
      const err = (await r.catch((e: unknown) => e)) as WebhookVerificationError;
      expect(err).toBeInstanceOf(WebhookSignatureError);
      expect(err.reason).toBe('signature');
    }
    expect(ids).toEqual([]);
  });

  it('when the body or one of its events is not an event, then WebhookPayloadError naming the event, and nothing is recorded', async () => {
    const { ids, seen } = recordingStore();
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[]', /the batch is empty/],
      ['null', /event 0 of the batch is not a JSON object/],
      [batch(envelope('evt_a'), 5), /event 1 of the batch is not a JSON object/],
      [batch(envelope('evt_a'), [envelope('evt_b')]), /event 1 of the batch is not a JSON object/],
      [batch(envelope('evt_a'), null), /event 1 of the batch is not a JSON object/],
      [batch(envelope('evt_a'), envelope('evt_b'), envelope('')), /event 2 of the batch has no event_id/],
      [batch(envelope('evt_a'), envelope('evt_b', { event: undefined })), /event 1 of the batch has no event$/],
      [batch(envelope('evt_a'), envelope('evt_b', { timestamp: 5 })), /event 1 of the batch has no timestamp/],
    ];
    for (const [raw, message] of cases) {
      const err = (await verifyWebhookBatch(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW, seen }).catch(
        (e: unknown) => e,
      )) as Error;
      expect(err).toBeInstanceOf(WebhookPayloadError);
      expect(err.message).toMatch(message);
    }
    expect(ids).toEqual([]);
  });

  it('when the batch, or one of its events, was signed more than the tolerance away from now, then WebhookTimestampError and nothing is recorded', async () => {
    const { ids, seen } = recordingStore();
    const raw = batch(envelope('evt_a'), envelope('evt_b'));
    const sig = signWebhook(raw, SECRET);
    await expect(verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW + 301_000, seen })).rejects.toBeInstanceOf(WebhookTimestampError);
    await expect(verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW - 301_000, seen })).rejects.toBeInstanceOf(WebhookTimestampError);
    const oneStale = batch(envelope('evt_a'), envelope('evt_b', { timestamp: '2030-01-01T11:50:00.000Z' }));
    await expect(verifyWebhookBatch(oneStale, signWebhook(oneStale, SECRET), SECRET, { now: () => NOW, seen })).rejects.toBeInstanceOf(
      WebhookTimestampError,
    );
    const unreadable = batch(envelope('evt_a'), envelope('evt_b', { timestamp: 'yesterday' }));
    await expect(verifyWebhookBatch(unreadable, signWebhook(unreadable, SECRET), SECRET, { now: () => NOW, seen })).rejects.toBeInstanceOf(
      WebhookTimestampError,
    );
    expect(ids).toEqual([]);
    const late = await verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW + 500_000, toleranceSeconds: 600, seen });
    expect(late.map((e) => e.event_id)).toEqual(['evt_a', 'evt_b']);
  });

  it('when some events of a batch were received before, then only the others come back, in order, and a batch of duplicates gives none', async () => {
    const seen = new MemorySeenEvents();
    const first = await verifyWebhook(body({ event_id: 'evt_b' }), signWebhook(body({ event_id: 'evt_b' }), SECRET), SECRET, {
      now: () => NOW,
      seen,
    });
    expect(first.event_id).toBe('evt_b');
    const raw = batch(envelope('evt_a'), envelope('evt_b'), envelope('evt_c'), envelope('evt_a'));
    const sig = signWebhook(raw, SECRET);
    const fresh = await verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW, seen });
    expect(fresh.map((e) => e.event_id)).toEqual(['evt_a', 'evt_c']);
    // The same batch again (its answer was lost): every event is a duplicate, nothing is thrown.
    await expect(verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW, seen })).resolves.toEqual([]);
    // The single-event check shares the store: an event of a batch is a duplicate for it too.
    const single = body({ event_id: 'evt_c' });
    await expect(verifyWebhook(single, signWebhook(single, SECRET), SECRET, { now: () => NOW, seen })).rejects.toBeInstanceOf(
      WebhookDuplicateError,
    );
    const next = batch(envelope('evt_c'), envelope('evt_d'));
    await expect(verifyWebhookBatch(next, signWebhook(next, SECRET), SECRET, { now: () => NOW, seen })).resolves.toMatchObject([
      { event_id: 'evt_d' },
    ]);
  });

  it('when no store is given, then every event comes back, repeated ids included', async () => {
    const raw = batch(envelope('evt_a'), envelope('evt_a'));
    const sig = signWebhook(raw, SECRET);
    for (let i = 0; i < 2; i++) {
      expect((await verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW })).map((e) => e.event_id)).toEqual(['evt_a', 'evt_a']);
    }
  });

  it('when an asynchronous store is given (Redis SET NX), then its answers decide which events come back', async () => {
    const store = new Set<string>(['evt_b']);
    const seen = { add: async (id: string) => (store.has(id) ? false : (store.add(id), true)) };
    const raw = batch(envelope('evt_a'), envelope('evt_b'), envelope('evt_c'));
    const events = await verifyWebhookBatch(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW, seen });
    expect(events.map((e) => e.event_id)).toEqual(['evt_a', 'evt_c']);
    expect([...store]).toEqual(['evt_b', 'evt_a', 'evt_c']);
  });

  it('when the store fails part way through a batch, then its error comes out and the ids before it stay recorded', async () => {
    const ids: string[] = [];
    const seen = {
      add: async (id: string) => {
        if (ids.length === 2) throw new Error('store down');
        ids.push(id);
        return true;
      },
    };
    const raw = batch(envelope('evt_a'), envelope('evt_b'), envelope('evt_c'));
    await expect(verifyWebhookBatch(raw, signWebhook(raw, SECRET), SECRET, { now: () => NOW, seen })).rejects.toThrow('store down');
    expect(ids).toEqual(['evt_a', 'evt_b']);
  });

  it('when the body is one event, not an array (batching switched on or off), then it comes back as a list of one', async () => {
    const seen = new MemorySeenEvents();
    const raw = body();
    const sig = signWebhook(raw, SECRET);
    await expect(verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW, seen })).resolves.toMatchObject([
      { event: 'sms.delivered', event_id: 'evt_1' },
    ]);
    await expect(verifyWebhookBatch(raw, sig, SECRET, { now: () => NOW, seen })).resolves.toEqual([]);
  });

  it('when the secret is empty, then the batch helper refuses to check anything', async () => {
    const raw = batch(envelope('evt_a'));
    await expect(verifyWebhookBatch(raw, signWebhook(raw, ''), '')).rejects.toThrow(TypeError);
  });
});
