import { ALL_DESTINATIONS } from '@smsgw/platform';
import type { ListenBus } from '../src/clients/listen-bus';
import type { ListenerSlots } from '../src/clients/listener-slots';
import { openListen, type ListenSink } from '../src/use-cases/listen.use-case';

const event = (id: string) => new TextEncoder().encode(JSON.stringify({ event: 'sms.sent', event_id: id, data: { message_id: 'msg_1' } }));

describe('the order of a listener’s stream', () => {
  it('when events arrive while the subscription is being confirmed, then ready comes first and those events follow it, in order', async () => {
    // NATS may hand events to the subscription while its flush is under way, before it resolves.
    const bus = {
      connected: true,
      async subscribe(_clientId: string, _mode: string, onEvent: (data: Uint8Array) => void) {
        onEvent(event('evt_early_1'));
        await Promise.resolve();
        onEvent(event('evt_early_2'));
        return { stop: () => undefined };
      },
    };
    const slots = { take: async () => ({ renew: async () => true, release: async () => undefined }) };
    const seen: string[] = [];
    const sink: ListenSink = {
      ready: () => seen.push('ready'),
      webhook: (eventId) => seen.push(eventId),
      keepalive: () => undefined,
      closed: () => undefined,
    };
    const session = await openListen(
      {
        bus: bus as unknown as ListenBus,
        slots: slots as unknown as ListenerSlots,
        maxPerClient: 5,
        keepaliveMs: 60_000,
        keyCheckMs: 60_000,
        maxBufferedBytes: 1024 * 1024,
      },
      { clientId: 'client_1', mode: 'live', defaultTtlSeconds: 0, destinations: ALL_DESTINATIONS, keyId: 'key_1', dailyQuota: 0 },
      ['sms.sent'],
      sink,
      async () => true,
    );
    await session.close();
    expect(seen).toEqual(['ready', 'evt_early_1', 'evt_early_2']);
  });
});
