import { AppError, type PublicEventKind } from '@smsgw/platform';
import type { ListenBus } from '../clients/listen-bus';
import type { ListenerSlots } from '../clients/listener-slots';
import { newListenSecret, parseListenedEvent, signListened, type SignedDelivery } from '../domain/listen';
import type { AuthContext } from '../http/context';

export interface ListenDeps {
  bus: ListenBus;
  slots: ListenerSlots;
  maxPerClient: number;
  keepaliveMs: number;
}

/** Where a session's output goes (the route writes it as server-sent events). */
export interface ListenSink {
  ready(ready: { secret: string; mode: 'live' | 'test'; events: PublicEventKind[] }): void;
  webhook(eventId: string, delivery: SignedDelivery): void;
  keepalive(): void;
}

export interface ListenSession {
  close(): Promise<void>;
}

/**
 * Opens a listener: a slot among the client's `maxPerClient`, a secret of its own, then every
 * event of the key's client and mode of the wanted kinds, signed as the webhook service signs a
 * delivery, and a keepalive (which also renews the slot) every `keepaliveMs`.
 */
export async function openListen(
  deps: ListenDeps | undefined,
  auth: AuthContext,
  kinds: PublicEventKind[],
  sink: ListenSink,
): Promise<ListenSession> {
  // A gateway without NATS (not configured, or away): the rest of the API goes on without it.
  if (!deps?.bus.connected) throw new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 5 });
  const slot = await deps.slots.take(auth.clientId);
  if (!slot) {
    throw new AppError('RATE_LIMIT_EXCEEDED', {
      message: `Trop d'écoutes ouvertes : au plus ${deps.maxPerClient} à la fois par client.`,
      retryAfterSeconds: Math.ceil(deps.keepaliveMs / 1000),
    });
  }
  const secret = newListenSecret();
  const wanted = new Set<string>(kinds);
  // Events that arrive while the subscription is being confirmed wait for `ready`: it comes first.
  let held: Uint8Array[] | undefined = [];
  const deliver = (data: Uint8Array) => {
    const event = parseListenedEvent(data);
    if (event && wanted.has(event.event)) sink.webhook(event.event_id, signListened(event, secret, new Date()));
  };
  const subscription = await deps.bus.subscribe(auth.clientId, auth.mode, (data) => (held ? held.push(data) : deliver(data)));
  if (!subscription) {
    await slot.release().catch(() => undefined);
    throw new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 5 });
  }
  sink.ready({ secret, mode: auth.mode, events: kinds });
  const early = held;
  held = undefined;
  early.forEach(deliver);
  const keepalive = setInterval(() => {
    sink.keepalive();
    // A Redis away for a moment leaves the slot to lapse: the stream itself goes on.
    slot.renew().catch(() => undefined);
  }, deps.keepaliveMs);
  let closed = false;
  return {
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(keepalive);
      subscription.stop();
      await slot.release().catch(() => undefined);
    },
  };
}
