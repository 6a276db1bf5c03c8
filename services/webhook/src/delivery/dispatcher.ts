import type { Logger } from '@smsgw/platform';
import type { DeliveryJob } from '../data/delivery.repository';

export interface DispatcherOptions {
  maxInFlight: number;
  perDestination: number;
  maxQueuedPerDestination: number;
}

interface Destination {
  queue: DeliveryJob[];
  inFlight: number;
}

/** The scheme, host and port of a URL: what one receiver is, for fairness. */
function destinationOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Runs attempts with bounded concurrency: at most `maxInFlight` in all and
 * `perDestination` to one receiver, so a receiver that hangs holds only its
 * own share and never delays the others. Each destination is a FIFO: the
 * attempts of one message's events start in the order they were queued.
 * Destinations take turns for free slots (round robin), so a busy one does
 * not starve a quiet one. A destination whose queue is full refuses more:
 * those deliveries stay in Postgres, leased, and the sweep takes them later.
 */
export class Dispatcher {
  private readonly destinations = new Map<string, Destination>();
  /** Destinations with queued work and a free slot of their own, in turn order. */
  private readonly ready: string[] = [];
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
    const key = destinationOf(job.url);
    let dest = this.destinations.get(key);
    if (!dest) {
      dest = { queue: [], inFlight: 0 };
      this.destinations.set(key, dest);
    }
    if (dest.queue.length >= this.options.maxQueuedPerDestination) return false;
    dest.queue.push(job);
    this.held.add(job.deliveryId);
    if (dest.queue.length === 1 && dest.inFlight < this.options.perDestination) this.ready.push(key);
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
    this.ready.length = 0;
    await this.idle();
  }

  /** Resolves once nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.ready.length > 0) {
      const key = this.ready.shift()!;
      const dest = this.destinations.get(key);
      if (!dest || dest.inFlight >= this.options.perDestination) continue;
      const job = dest.queue.shift();
      if (!job) continue;
      dest.inFlight++;
      this.inFlight++;
      if (dest.queue.length > 0 && dest.inFlight < this.options.perDestination) this.ready.push(key);
      void this.execute(key, dest, job);
    }
  }

  private async execute(key: string, dest: Destination, job: DeliveryJob): Promise<void> {
    try {
      await this.run(job);
    } catch (err) {
      // The runner records every outcome itself; this is a bug or a lost database.
      this.log.error({ err, delivery_id: job.deliveryId }, 'delivery attempt crashed; the sweep will take it again');
    } finally {
      this.held.delete(job.deliveryId);
      dest.inFlight--;
      this.inFlight--;
      // A slot of this destination just freed: it takes its turn again.
      if (dest.queue.length > 0 && dest.inFlight === this.options.perDestination - 1) this.ready.push(key);
      if (dest.queue.length === 0 && dest.inFlight === 0) this.destinations.delete(key);
      this.pump();
      if (this.held.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }
}
