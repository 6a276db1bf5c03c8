import { newId, type Logger } from '@smsgw/platform';
import type { DeliveryJob } from '../data/delivery.repository';
import { MAX_BATCH_EVENTS } from '../domain/routing';

export interface DispatcherOptions {
  maxInFlight: number;
  perDestination: number;
  perClient: number;
  /** Deliveries waiting here (queued, or gathering in a batch) for one destination. */
  maxQueuedPerDestination: number;
  /** How long a batch gathers deliveries after its first one. */
  batchWindowMs: number;
}

/**
 * One attempt: one POST, carrying one delivery, or (`batchId` set) up to 100 deliveries of a
 * batched endpoint, each at the same attempt number.
 */
export interface Attempt {
  /** Names a batch's events together; a batch retried keeps it. Null for a delivery posted alone. */
  batchId: string | null;
  jobs: readonly DeliveryJob[];
}

/** A batch still taking deliveries: it leaves when full or when its window ends. */
interface Gathering {
  batchId: string;
  jobs: DeliveryJob[];
  timer: NodeJS.Timeout;
}

interface Destination {
  key: string;
  clientId: string;
  queue: Attempt[];
  /** Deliveries in `queue` and in `gathering`. */
  waiting: number;
  /** Batches taking deliveries, by attempt number: a batch's events are all at the same attempt. */
  gathering: Map<number, Gathering>;
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
 *
 * The deliveries of a batched endpoint gather in a batch that leaves (is
 * queued as one attempt) when it holds 100, or `batchWindowMs` after its
 * first one; a batch counts as one attempt in flight.
 */
export class Dispatcher {
  private readonly destinations = new Map<string, Destination>();
  private readonly clients = new Map<string, Client>();
  /** Destinations with queued work and a free slot of their own, in turn order. */
  private readonly ready: Destination[] = [];
  private inFlight = 0;
  /** The deliveries queued or in flight here, each with its attempt number. */
  private readonly held = new Map<string, number>();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly run: (attempt: Attempt) => Promise<void>,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {}

  /**
   * Queues the attempt of a delivery, or adds it to its batched endpoint's gathering batch;
   * false when its destination holds all it may (the delivery waits for the sweep).
   */
  enqueue(job: DeliveryJob): boolean {
    if (this.stopped) return false;
    if (this.holds(job)) return true;
    const dest = this.destination(job);
    if (dest.waiting >= this.options.maxQueuedPerDestination) return false;
    this.held.set(job.deliveryId, job.attempt);
    dest.waiting++;
    if (job.batch) this.gather(dest, job);
    else this.queue(dest, { batchId: null, jobs: [job] });
    return true;
  }

  /**
   * Queues a batch as it is (a batch retried whole), without waiting: its deliveries are of one
   * destination and at one attempt. Those of an endpoint that no longer takes batches go one a POST.
   */
  enqueueBatch(batchId: string, jobs: readonly DeliveryJob[]): boolean {
    if (this.stopped) return false;
    const fresh = jobs.filter((j) => !this.holds(j));
    if (fresh.length === 0) return true;
    if (!fresh[0]!.batch) return fresh.map((j) => this.enqueue(j)).every(Boolean);
    const dest = this.destination(fresh[0]!);
    if (dest.waiting + fresh.length > this.options.maxQueuedPerDestination) return false;
    for (const j of fresh) this.held.set(j.deliveryId, j.attempt);
    dest.waiting += fresh.length;
    for (let i = 0; i < fresh.length; i += MAX_BATCH_EVENTS) {
      this.queue(dest, { batchId: i === 0 ? batchId : newId('whb'), jobs: fresh.slice(i, i + MAX_BATCH_EVENTS) });
    }
    return true;
  }

  /** Deliveries queued or in flight here, whose leases this replica keeps alive. */
  heldIds(): string[] {
    return [...this.held.keys()];
  }

  get size(): number {
    return this.held.size;
  }

  /**
   * Stops taking work: what is queued or gathering is let go (its leases run
   * out and the sweep of a running replica takes it), what is in flight finishes.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const dest of this.destinations.values()) {
      for (const g of dest.gathering.values()) {
        clearTimeout(g.timer);
        for (const job of g.jobs) this.letGo(job);
      }
      dest.gathering.clear();
      for (const attempt of dest.queue) for (const job of attempt.jobs) this.letGo(job);
      dest.queue = [];
      dest.waiting = 0;
    }
    this.settle();
    await this.idle();
  }

  /** Resolves once nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private destination(job: DeliveryJob): Destination {
    const key = destinationKey(job);
    let dest = this.destinations.get(key);
    if (!dest) {
      dest = { key, clientId: job.clientId, queue: [], waiting: 0, gathering: new Map(), inFlight: 0, scheduled: false };
      this.destinations.set(key, dest);
    }
    return dest;
  }

  private queue(dest: Destination, attempt: Attempt): void {
    dest.queue.push(attempt);
    this.schedule(dest);
    this.pump();
  }

  /** Adds a delivery to its destination's batch of the same attempt number, which leaves once full or at the end of its window. */
  private gather(dest: Destination, job: DeliveryJob): void {
    let g = dest.gathering.get(job.attempt);
    if (!g) {
      const batchId = newId('whb');
      const timer = setTimeout(() => this.release(dest, job.attempt, batchId), this.options.batchWindowMs);
      g = { batchId, jobs: [], timer };
      dest.gathering.set(job.attempt, g);
    }
    g.jobs.push(job);
    if (g.jobs.length >= MAX_BATCH_EVENTS) this.release(dest, job.attempt, g.batchId);
  }

  /** A gathering batch leaves: it is queued as one attempt. */
  private release(dest: Destination, attemptNumber: number, batchId: string): void {
    const g = dest.gathering.get(attemptNumber);
    if (!g || g.batchId !== batchId) return;
    clearTimeout(g.timer);
    dest.gathering.delete(attemptNumber);
    this.queue(dest, { batchId: g.batchId, jobs: g.jobs });
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
      const attempt = dest.queue.shift();
      if (!attempt) continue;
      dest.waiting -= attempt.jobs.length;
      dest.inFlight++;
      client.inFlight++;
      this.inFlight++;
      this.schedule(dest);
      void this.execute(dest, client, attempt);
    }
  }

  private async execute(dest: Destination, client: Client, attempt: Attempt): Promise<void> {
    try {
      await this.run(attempt);
    } catch (err) {
      // The runner records every outcome itself; this is a bug or a lost database.
      this.log.error(
        { err, delivery_id: attempt.jobs[0]?.deliveryId, batch_id: attempt.batchId ?? undefined, deliveries: attempt.jobs.length },
        'delivery attempt crashed; the sweep will take it again',
      );
    } finally {
      for (const job of attempt.jobs) this.letGo(job);
      dest.inFlight--;
      client.inFlight--;
      this.inFlight--;
      const waiting = client.waiting.shift();
      if (waiting) this.ready.push(waiting);
      this.schedule(dest);
      if (dest.queue.length === 0 && dest.inFlight === 0 && !dest.scheduled && dest.gathering.size === 0)
        this.destinations.delete(dest.key);
      if (client.inFlight === 0 && client.waiting.length === 0) this.clients.delete(dest.clientId);
      this.pump();
      this.settle();
    }
  }

  /**
   * Whether this attempt of the delivery (or a later one) is here already. An earlier one may still
   * be finishing when the next attempt's timer fires: the next one is taken all the same.
   */
  private holds(job: DeliveryJob): boolean {
    return (this.held.get(job.deliveryId) ?? 0) >= job.attempt;
  }

  /** Lets go of a delivery's attempt, unless a later attempt of it has been taken since. */
  private letGo(job: DeliveryJob): void {
    if (this.held.get(job.deliveryId) === job.attempt) this.held.delete(job.deliveryId);
  }

  /** Wakes those waiting for `idle` once nothing is held. */
  private settle(): void {
    if (this.held.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
