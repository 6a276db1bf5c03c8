import { newId, type PublicEvent } from '@smsgw/platform';
import { startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { eventually } from '@smsgw/testing';
import { destinationsOf, type EndpointTarget } from '../src/domain/routing';
import { startWebhookService, type RunningWebhookService } from './support/service';

const CLIENT = 'client_1700000000000000391';
const OWNER = 'proprio@example.com';

const fraudEvent = (routing: Partial<PublicEvent['routing']> = {}): PublicEvent => ({
  event: 'otp.fraud_suspected',
  event_id: newId('evt'),
  timestamp: new Date().toISOString(),
  data: {
    hold_id: newId('hold'),
    scope: 'prefix',
    prefix: '+3361234',
    country: 'FR',
    requests: 20,
    verified: 0,
    conversion_rate: 0,
    window_seconds: 3600,
    held_at: new Date().toISOString(),
    held_until: new Date(Date.now() + 3600_000).toISOString(),
  },
  routing: { client_id: CLIENT, mode: 'live', ...routing },
});

describe('otp.fraud_suspected: only endpoints that name it, and the owner alerted by e-mail', () => {
  it('when the event is routed, then only enabled endpoints of its client and mode that name it get it, never a message URL', () => {
    const endpoint = (id: string, events: string[], change: Partial<EndpointTarget> = {}): EndpointTarget => ({
      endpoint_id: id,
      client_id: CLIENT,
      mode: 'live',
      url: `https://example.com/${id}`,
      events,
      enabled: true,
      ...change,
    });
    const everySpecKind = ['sms.sent', 'sms.delivered', 'sms.failed', 'sms.received', 'device.connected', 'device.disconnected'];
    const endpoints = [
      endpoint('named', ['otp.fraud_suspected']),
      endpoint('all-spec', everySpecKind),
      endpoint('test-mode', ['otp.fraud_suspected'], { mode: 'test' }),
      endpoint('disabled', ['otp.fraud_suspected'], { enabled: false }),
      endpoint('other', ['otp.fraud_suspected'], { client_id: 'client_1' }),
    ];
    const to = destinationsOf(fraudEvent({ webhook_url: 'https://example.com/message-url' }), endpoints);
    expect(to.map((d) => d.key)).toEqual(['endpoint:named']);
  });

  describe('through the real service', () => {
    let mail: MailCatcher;
    let service: RunningWebhookService;

    beforeAll(async () => {
      mail = await startMailCatcher();
      service = await startWebhookService({ clientId: CLIENT, email: OWNER, name: 'Boulangerie Martin' }, { SMTP_URL: mail.url });
    }, 60_000);

    afterAll(async () => {
      await service?.stop();
      await mail?.stop();
    });

    const publish = async (event: PublicEvent, msgID = event.event_id) => {
      const nats = service.sandbox.nats!;
      await nats.js.publish(nats.names.event(event.event), JSON.stringify(event), { msgID });
    };

    it('when the otp service publishes it, then a delivery is recorded for the endpoint naming it alone, and the owner gets one e-mail naming the prefix', async () => {
      const named = await service.client.createEndpoint({
        clientId: CLIENT,
        url: 'https://127.0.0.1:9/named',
        events: ['otp.fraud_suspected'],
        mode: 'MODE_LIVE',
        description: 'named',
      });
      await service.client.createEndpoint({
        clientId: CLIENT,
        url: 'https://127.0.0.1:9/all',
        events: ['sms.sent', 'sms.delivered', 'sms.failed', 'sms.received', 'device.connected', 'device.disconnected'],
        mode: 'MODE_LIVE',
        description: 'all',
      });
      const event = fraudEvent();
      await publish(event);

      const deliveries = await eventually(
        async () => {
          const { deliveries } = await service.client.listDeliveries({ clientId: CLIENT, eventId: event.event_id, limit: 10 });
          return deliveries.length > 0 && deliveries;
        },
        10_000,
        'the delivery',
      );
      expect(deliveries.map((d) => [d.endpointId, d.event])).toEqual([[named.endpointId, 'otp.fraud_suspected']]);

      const alert = await mail.waitFor((m) => m.raw.includes(event.event_id), 10_000);
      expect(alert.to).toEqual([OWNER]);
      expect(alert.subject).toBe('SMS pumping suspected: one-time passwords to +3361234 are held');
      expect(alert.raw.replace(/=\r?\n/g, '')).toContain('to numbers starting with +3361234 (FR)');
      expect(alert.raw).toContain('Boulangerie Martin');

      // The same event again (a redelivery past JetStream's duplicate window): no second e-mail.
      await publish(event, `${event.event_id}:again`);
      await new Promise((r) => setTimeout(r, 1500));
      expect(mail.mails.filter((m) => m.raw.includes(event.event_id))).toHaveLength(1);
    });

    it('when a test event of the kind is asked, then its sample has the fields of the real one', async () => {
      const ep = await service.client.createEndpoint({
        clientId: CLIENT,
        url: 'https://127.0.0.1:9/sample',
        events: ['otp.fraud_suspected'],
        mode: 'MODE_LIVE',
        description: 'sample',
      });
      const sent = await service.client.sendTestEvent({ clientId: CLIENT, endpointId: ep.endpointId, event: 'otp.fraud_suspected' });
      expect(sent.eventId).toMatch(/^evt_/);
    });
  });
});
