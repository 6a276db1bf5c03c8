import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { parseJobFire, runPeriodicJob, type Logger, type Nats } from '@smsgw/platform';
import type { DeliveryJob, DeliveryRepository } from '../data/delivery.repository';

const DURABLE = 'webhook-timers';
/** The subject of retry timers, under the platform's `timers.`. */
export const RETRY_SUBJECT = 'webhook.retry';
/** A failed job run is tried this many times in all, then left to the next period. */
const MAX_ATTEMPTS = 5;

export interface RetryPayload {
  delivery_id: string;
  attempt: number;
}

export const retryTimerKey = (deliveryId: string, attempt: number) => `webhook:${deliveryId}:${attempt}`;

function parseRetry(bytes: Uint8Array): RetryPayload | undefined {
  try {
    const p = JSON.parse(new TextDecoder().decode(bytes)) as Partial<RetryPayload> | null;
    if (p && typeof p.delivery_id === 'string' && Number.isInteger(p.attempt)) return p as RetryPayload;
  } catch {
    // dropped below
  }
  return undefined;
}

/**
 * The webhook service's timers (`timers.webhook.>`), one durable consumer
 * shared by the replicas: a retry that is due (its delivery is leased and its
 * attempt queued; the fire is acknowledged then, and the lease, renewed while
 * it waits, keeps it from the sweep), and the periodic jobs.
 */
export class TimerConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly nats: Nats,
    private readonly repo: DeliveryRepository,
    private readonly enqueue: (job: DeliveryJob) => boolean,
    private readonly jobs: Record<string, () => Promise<Record<string, unknown>>>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { jsm, js, names } = this.nats;
    await jsm.consumers.add(names.timersStream, {
      durable_name: DURABLE,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 60_000_000_000,
      max_deliver: -1,
      filter_subject: names.timer('webhook.>'),
    });
    const consumer = await js.consumers.get(names.timersStream, DURABLE);
    this.messages = await consumer.consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        const task = (msg.subject === names.timer(RETRY_SUBJECT) ? this.retry(msg) : this.job(msg)).finally(() => this.running.delete(task));
        this.running.add(task);
      }
    })();
  }

  private async retry(msg: JsMsg): Promise<void> {
    const due = parseRetry(msg.data);
    if (!due) {
      this.log.warn({ subject: msg.subject }, 'malformed retry timer dropped');
      msg.term();
      return;
    }
    try {
      const job = await this.repo.claim(due.delivery_id, due.attempt);
      // Nothing to claim: the attempt was made, the delivery ended, or another replica has it.
      if (job) this.enqueue(job);
      msg.ack();
    } catch (err) {
      this.log.warn({ err, delivery_id: due.delivery_id }, 'claiming a retry failed; it will come again');
      msg.nak(2000);
    }
  }

  private async job(msg: JsMsg): Promise<void> {
    const fire = parseJobFire(msg.data);
    const run = fire && this.jobs[fire.job];
    if (!fire || !run) {
      this.log.warn({ subject: msg.subject }, 'unknown periodic job dropped');
      msg.term();
      return;
    }
    const heartbeat = setInterval(() => msg.working(), 20_000);
    try {
      await runPeriodicJob(fire, run, this.log);
      msg.ack();
    } catch {
      if (msg.info.deliveryCount >= MAX_ATTEMPTS) msg.term();
      else msg.nak(30_000);
    } finally {
      clearInterval(heartbeat);
    }
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
    await Promise.all(this.running);
  }
}
