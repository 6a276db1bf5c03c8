import { AppError, type PublicEventKind } from '@smsgw/platform';
import type { ListenBus } from '../clients/listen-bus';
import type { ListenerSlots } from '../clients/listener-slots';
import { newListenSecret, parseListenedEvents, signListened, type SignedDelivery } from '../domain/listen';
import type { AuthContext } from '../http/context';

export interface ListenDeps {
  bus: ListenBus;
  slots: ListenerSlots;
  maxPerClient: number;
  keepaliveMs: number;
  /** How often an open stream checks that its key still holds (the API's own cache answers most). */
  keyCheckMs: number;
  /** Bytes a listener may leave unread; past them, its stream is closed. */
  maxBufferedBytes: number;
}

/** Whether the stream's key still holds: false once it is revoked, undefined when that cannot be told now. */
export type KeyCheck = () => Promise<boolean | undefined>;

/** Where a session's output goes (the route writes it as server-sent events). */
export interface ListenSink {
  ready(ready: { secret: string; mode: 'live' | 'test'; events: PublicEventKind[] }): void;
  webhook(eventId: string, delivery: SignedDelivery): void;
  keepalive(): void;
  /** The last words of a stream the gateway ends (its key revoked), then its end. */
  closed(reason: { code: string; message: string }): void;
}

export interface ListenSession {
  close(): Promise<void>;
}

/**
 * Opens a listener: a slot among the client's `maxPerClient`, a secret of its own, then every
 * event of the key's client and mode of the wanted kinds, signed as the webhook service signs a
 * delivery, and a keepalive (which also renews the slot) every `keepaliveMs`. Every `keyCheckMs`
 * the key is checked again, as any request's: once it is refused (revoked), the stream is closed.
 */
export async function openListen(
  deps: ListenDeps | undefined,
  auth: AuthContext,
  kinds: PublicEventKind[],
  sink: ListenSink,
  keyHolds: KeyCheck,
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
    for (const event of parseListenedEvents(data)) {
      if (wanted.has(event.event)) sink.webhook(event.event_id, signListened(event, secret, new Date()));
    }
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
  let checking = false;
  const keyCheck = setInterval(() => {
    if (checking || closed) return;
    checking = true;
    keyHolds()
      .then((holds) => {
        if (holds !== false || closed) return;
        sink.closed({ code: 'INVALID_API_KEY', message: new AppError('INVALID_API_KEY').message });
        void session.close();
      })
      // The account service away: the stream goes on, as requests with a key verified lately do.
      .catch(() => undefined)
      .finally(() => (checking = false));
  }, deps.keyCheckMs);
  const session: ListenSession = {
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(keepalive);
      clearInterval(keyCheck);
      subscription.stop();
      await slot.release().catch(() => undefined);
    },
  };
  return session;
}
