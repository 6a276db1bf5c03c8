import type { Logger } from '@smsgw/platform';
import type { DeliveryJob } from '../data/delivery.repository';

export interface DispatcherOptions {
  maxInFlight: number;
  perDestination: number;
  perClient: number;
  maxQueuedPerDestination: number;
}

interface Destination {
  key: string;
  clientId: string;
  queue: DeliveryJob[];
  inFlight: number;
  /** In `ready` or in its client's `waiting`: it will be given a turn. */
  scheduled: boolean;
}

interface Client {
  inFlight: number;
  /** Destinations with work that wait for a slot of this client. */
  waiting: Destination[];
}

/** One receiver: a global endpoint, or a message's own URL. */
const destinationKey = (job: DeliveryJob) => job.endpointId ?? `url:${job.url}`;

/**
 * Runs attempts with bounded concurrency: at most `maxInFlight` in all,
 * `perDestination` to one receiver and `perClient` for one client, so a
 * receiver that hangs holds only its own share and never delays other
 * endpoints or other clients. Each destination is a FIFO: the attempts of
 * one message's events start in the order they were queued. Destinations
 * take turns for free slots (round robin), so a busy one does not starve a
 * quiet one. A destination whose queue is full refuses more: those
 * deliveries stay in Postgres, leased, and the sweep takes them later.
 */
export class Dispatcher {
  private readonly destinations = new Map<string, Destination>();
  private readonly clients = new Map<string, Client>();
  /** Destinations with queued work and a free slot of their own, in turn order. */
  private readonly ready: Destination[] = [];
  private inFlight = 0;
  private readonly held = new Set<string>();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly run: (job: DeliveryJob) => Promise<void>,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {}

  /** Queues an attempt; false when its destination's queue is full (the delivery waits for the sweep). */
  enqueue(job: DeliveryJob): boolean {
    if (this.stopped) return false;
    if (this.held.has(job.deliveryId)) return true;
    const key = destinationKey(job);
    let dest = this.destinations.get(key);
    if (!dest) {
      dest = { key, clientId: job.clientId, queue: [], inFlight: 0, scheduled: false };
      this.destinations.set(key, dest);
    }
    if (dest.queue.length >= this.options.maxQueuedPerDestination) return false;
    dest.queue.push(job);
    this.held.add(job.deliveryId);
    this.schedule(dest);
    this.pump();
    return true;
  }

  /** Deliveries queued or in flight here, whose leases this replica keeps alive. */
  heldIds(): string[] {
    return [...this.held];
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * Stops taking work: what is queued is let go (its leases run out and the
   * sweep of a running replica takes it), what is in flight finishes.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const dest of this.destinations.values()) {
      for (const job of dest.queue) this.held.delete(job.deliveryId);
      dest.queue = [];
    }
    await this.idle();
  }

  /** Resolves once nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private client(clientId: string): Client {
    let client = this.clients.get(clientId);
    if (!client) {
      client = { inFlight: 0, waiting: [] };
      this.clients.set(clientId, client);
    }
    return client;
  }

  /** Gives a destination with work and a free slot its turn (once). */
  private schedule(dest: Destination): void {
    if (dest.scheduled || dest.queue.length === 0 || dest.inFlight >= this.options.perDestination) return;
    dest.scheduled = true;
    this.ready.push(dest);
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.ready.length > 0) {
      const dest = this.ready.shift()!;
      const client = this.client(dest.clientId);
      if (client.inFlight >= this.options.perClient) {
        // Its client is at its bound: it waits for one of that client's slots.
        client.waiting.push(dest);
        continue;
      }
      dest.scheduled = false;
      const job = dest.queue.shift();
      if (!job) continue;
      dest.inFlight++;
      client.inFlight++;
      this.inFlight++;
      this.schedule(dest);
      void this.execute(dest, client, job);
    }
  }

  private async execute(dest: Destination, client: Client, job: DeliveryJob): Promise<void> {
    try {
      await this.run(job);
    } catch (err) {
      // The runner records every outcome itself; this is a bug or a lost database.
      this.log.error({ err, delivery_id: job.deliveryId }, 'delivery attempt crashed; the sweep will take it again');
    } finally {
      this.held.delete(job.deliveryId);
      dest.inFlight--;
      client.inFlight--;
      this.inFlight--;
      const waiting = client.waiting.shift();
      if (waiting) this.ready.push(waiting);
      this.schedule(dest);
      if (dest.queue.length === 0 && dest.inFlight === 0 && !dest.scheduled) this.destinations.delete(dest.key);
      if (client.inFlight === 0 && client.waiting.length === 0) this.clients.delete(dest.clientId);
      this.pump();
      if (this.held.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }
}
