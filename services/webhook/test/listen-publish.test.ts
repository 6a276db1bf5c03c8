import { listenSubject, newId, type PublicEvent } from '@smsgw/platform';
import { eventually } from '@smsgw/testing';
import { startWebhookService, type RunningWebhookService } from './support/service';

// `smsgw listen` (issue 25): every event the service consumes goes out on core NATS,
// `listen.<client_id>.<mode>`, as the public envelope without its routing, those of a batch in one array.

const CLIENT = 'client_listen';

describe('the events published to listeners by the real webhook service', () => {
  let service: RunningWebhookService;

  beforeAll(async () => {
    service = await startWebhookService({ clientId: CLIENT });
  }, 60_000);

  afterAll(() => service?.stop());

  function sentEvent(mode: 'live' | 'test', over: Partial<PublicEvent['routing']> = {}): PublicEvent {
    const messageId = newId('msg');
    return {
      event: 'sms.sent',
      event_id: newId('evt'),
      timestamp: new Date().toISOString(),
      data: { message_id: messageId, status: 'sent', to: '+33612345678', sim: null, sent_at: new Date().toISOString(), metadata: {} },
      routing: { client_id: CLIENT, mode, ...over },
    };
  }

  it('when an event is consumed, with no endpoint and even with a webhook_url, then it is published once on its client and mode, without routing', async () => {
    const nats = service.sandbox.nats!;
    const live = nats.nc.subscribe(listenSubject(nats.names.prefix, CLIENT, 'live'));
    const test = nats.nc.subscribe(listenSubject(nats.names.prefix, CLIENT, 'test'));
    await nats.nc.flush();
    const received: { subject: string; body: unknown }[] = [];
    for (const sub of [live, test]) {
      void (async () => {
        // The events of a consumed batch come together, one array per client and mode.
        for await (const m of sub) for (const body of m.json<unknown[]>()) received.push({ subject: m.subject, body });
      })();
    }

    const liveEvent = sentEvent('live', { webhook_url: 'https://example.com/hook' });
    const testEvent = sentEvent('test');
    for (const event of [liveEvent, testEvent])
      await nats.js.publish(nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });

    await eventually(async () => received.length >= 2, 15_000, 'both events');
    const { routing: _liveRouting, ...liveEnvelope } = liveEvent;
    const { routing: _testRouting, ...testEnvelope } = testEvent;
    expect(received).toEqual(
      expect.arrayContaining([
        { subject: listenSubject(nats.names.prefix, CLIENT, 'live'), body: liveEnvelope },
        { subject: listenSubject(nats.names.prefix, CLIENT, 'test'), body: testEnvelope },
      ]),
    );
    expect(received).toHaveLength(2);
    live.unsubscribe();
    test.unsubscribe();
  });
});
