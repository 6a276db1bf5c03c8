import { connectNats, listenSubject, type Logger, type Nats } from '@smsgw/platform';

export interface ListenBusOptions {
  url: string;
  prefix: string;
  user?: string;
  password?: string;
}

/** One listener's subscription; `stop` ends it. */
export interface ListenSubscription {
  stop(): void;
}

const RETRY_MS = 5000;

/**
 * The gateway's optional NATS connection, for GET /v1/events/listen only: core NATS, subscriptions
 * to `listen.<client_id>.<mode>` (the only right of its user). It connects in the background and
 * keeps trying: the gateway starts, and sends, without it.
 */
export class ListenBus {
  private nats?: Nats;
  private stopped = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly options: ListenBusOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    void this.connect();
  }

  private async connect(): Promise<void> {
    try {
      const nats = await connectNats({ ...this.options, name: 'gateway', log: this.log, jetstream: false });
      if (this.stopped) {
        await nats.nc.close();
        return;
      }
      this.nats = nats;
      this.log.info('NATS connected: GET /v1/events/listen is served');
    } catch (err) {
      if (this.stopped) return;
      this.log.warn({ err }, 'NATS unreachable: GET /v1/events/listen answers 503 until it is back');
      this.timer = setTimeout(() => void this.connect(), RETRY_MS);
      this.timer.unref();
    }
  }

  /** Whether a listener can be served now. */
  get connected(): boolean {
    return this.nats !== undefined && !this.nats.nc.isClosed();
  }

  /**
   * Each event published for the client and mode, as bytes, from when this resolves (the server
   * has the subscription); undefined while NATS is not connected.
   */
  async subscribe(clientId: string, mode: 'live' | 'test', onEvent: (data: Uint8Array) => void): Promise<ListenSubscription | undefined> {
    const nats = this.nats;
    if (!nats || !this.connected) return undefined;
    const sub = nats.nc.subscribe(listenSubject(this.options.prefix, clientId, mode), {
      callback: (err, msg) => {
        if (!err) onEvent(msg.data);
      },
    });
    try {
      await nats.nc.flush();
    } catch {
      sub.unsubscribe();
      return undefined;
    }
    return { stop: () => sub.unsubscribe() };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.nats?.nc.drain().catch(() => undefined);
  }
}
