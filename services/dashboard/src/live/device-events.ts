import type { Logger, Nats } from '@smsgw/platform';
import type { Subscription } from '@nats-io/transport-node';

export interface DeviceChange {
  device_id: string;
  status: 'online' | 'offline';
  at: string;
}

type Listener = (change: DeviceChange) => void;

/**
 * Phones going online and offline, pushed to the browsers of their client:
 * the hub's `events.device.connected|disconnected`, read from core NATS (a
 * live view needs no durable consumer: a page that connects later reads the
 * state first). One account holds at most `maxPerClient` listeners on this
 * replica: each is an open connection and its buffers, which one account could
 * otherwise multiply at every other account's expense.
 */
export class DeviceEvents {
  private readonly listeners = new Map<string, Set<Listener>>();
  private sub?: Subscription;

  constructor(
    private readonly nats: Nats,
    private readonly log: Logger,
    private readonly maxPerClient = 10,
  ) {}

  start(): void {
    this.sub = this.nats.nc.subscribe(this.nats.names.event('device.*'));
    const sub = this.sub;
    void (async () => {
      for await (const msg of sub) {
        try {
          const event = JSON.parse(new TextDecoder().decode(msg.data)) as {
            event: string;
            data: { device_id: string; client_id: string; at: string };
          };
          const change: DeviceChange = {
            device_id: event.data.device_id,
            status: event.event === 'device.connected' ? 'online' : 'offline',
            at: event.data.at,
          };
          for (const listener of this.listeners.get(event.data.client_id) ?? []) listener(change);
        } catch (err) {
          this.log.warn({ err }, 'unreadable device event');
        }
      }
    })();
  }

  /**
   * Calls `listener` with the client's phone changes until the returned function is called;
   * undefined, listening to nothing, when the client has `maxPerClient` listeners already.
   */
  listen(clientId: string, listener: Listener): (() => void) | undefined {
    let set = this.listeners.get(clientId);
    if (set && set.size >= this.maxPerClient) return undefined;
    if (!set) {
      set = new Set();
      this.listeners.set(clientId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(clientId);
    };
  }

  stop(): void {
    this.sub?.unsubscribe();
  }
}
