import type { JsMsg } from '@nats-io/jetstream';
import { decodeJsonPayload, runTimerConsumer, type DurableConsumer, type JobHandler, type Logger, type Nats } from '@smsgw/platform';
import type { DeliveryJob, DeliveryRepository } from '../data/delivery.repository';

const DURABLE = 'webhook-timers';
/** The subject of retry timers, under the platform's `timers.`. */
export const RETRY_SUBJECT = 'webhook.retry';

export interface RetryPayload {
  delivery_id: string;
  attempt: number;
}

export const retryTimerKey = (deliveryId: string, attempt: number) => `webhook:${deliveryId}:${attempt}`;

function parseRetry(bytes: Uint8Array): RetryPayload | undefined {
  const p = decodeJsonPayload<RetryPayload>(bytes);
  return p && typeof p.delivery_id === 'string' && Number.isInteger(p.attempt) ? (p as RetryPayload) : undefined;
}

/**
 * The webhook service's timers (`timers.webhook.>`), one durable consumer
 * shared by the replicas: a retry that is due (its delivery is leased and its
 * attempt queued; the fire is acknowledged then, and the lease, renewed while
 * it waits, keeps it from the sweep), and the periodic jobs.
 */
export class TimerConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly repo: DeliveryRepository,
    private readonly enqueue: (job: DeliveryJob) => boolean,
    private readonly jobs: Record<string, JobHandler>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.consumer = await runTimerConsumer(this.nats, {
      service: 'webhook',
      durable: DURABLE,
      jobs: this.jobs,
      handlers: { [RETRY_SUBJECT]: (msg) => this.retry(msg) },
      log: this.log,
    });
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

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
