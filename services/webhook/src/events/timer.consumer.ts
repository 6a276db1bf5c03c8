import type { JsMsg } from '@nats-io/jetstream';
import { decodeJsonPayload, runTimerConsumer, type DurableConsumer, type JobHandler, type Logger, type Nats } from '@smsgw/platform';
import type { DeliveryJob, DeliveryRepository } from '../data/delivery.repository';

const DURABLE = 'webhook-timers';
/** The subject of retry timers, under the platform's `timers.`. */
export const RETRY_SUBJECT = 'webhook.retry';
/** The subject of a batch's retry timers: one timer for all its deliveries. */
export const BATCH_RETRY_SUBJECT = 'webhook.retry-batch';

export interface RetryPayload {
  delivery_id: string;
  attempt: number;
}

export interface BatchRetryPayload {
  batch_id: string;
  delivery_ids: string[];
  attempt: number;
}

/** How soon a fire whose previous attempt is not yet recorded comes again. */
const AGAIN_MS = 1000;

export const retryTimerKey = (deliveryId: string, attempt: number) => `webhook:${deliveryId}:${attempt}`;
export const batchRetryTimerKey = (batchId: string, attempt: number) => `webhook:${batchId}:${attempt}`;

function parseRetry(bytes: Uint8Array): RetryPayload | undefined {
  const p = decodeJsonPayload<RetryPayload>(bytes);
  return p && typeof p.delivery_id === 'string' && Number.isInteger(p.attempt) ? (p as RetryPayload) : undefined;
}

function parseBatchRetry(bytes: Uint8Array): BatchRetryPayload | undefined {
  const p = decodeJsonPayload<BatchRetryPayload>(bytes);
  return p &&
    typeof p.batch_id === 'string' &&
    Array.isArray(p.delivery_ids) &&
    p.delivery_ids.every((id) => typeof id === 'string') &&
    Number.isInteger(p.attempt)
    ? (p as BatchRetryPayload)
    : undefined;
}

/**
 * The webhook service's timers (`timers.webhook.>`), one durable consumer
 * shared by the replicas: a retry that is due (its delivery is leased and its
 * attempt queued; the fire is acknowledged then, and the lease, renewed while
 * it waits, keeps it from the sweep), a batch's retry (its deliveries leased
 * in one statement and queued as one POST again), and the periodic jobs.
 */
export class TimerConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly repo: DeliveryRepository,
    private readonly enqueue: (job: DeliveryJob) => boolean,
    private readonly enqueueBatch: (batchId: string, jobs: readonly DeliveryJob[]) => boolean,
    private readonly jobs: Record<string, JobHandler>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.consumer = await runTimerConsumer(this.nats, {
      service: 'webhook',
      durable: DURABLE,
      jobs: this.jobs,
      handlers: { [RETRY_SUBJECT]: (msg) => this.retry(msg), [BATCH_RETRY_SUBJECT]: (msg) => this.retryBatch(msg) },
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
      if (job) this.enqueue(job);
      else if (await this.stillToTake([due.delivery_id], due.attempt)) {
        msg.nak(AGAIN_MS);
        return;
      }
      // Otherwise nothing to claim: the attempt was made, the delivery ended, or another replica has it.
      msg.ack();
    } catch (err) {
      this.log.warn({ err, delivery_id: due.delivery_id }, 'claiming a retry failed; it will come again');
      msg.nak(2000);
    }
  }

  private async retryBatch(msg: JsMsg): Promise<void> {
    const due = parseBatchRetry(msg.data);
    if (!due) {
      this.log.warn({ subject: msg.subject }, 'malformed batch retry timer dropped');
      msg.term();
      return;
    }
    try {
      // Those not claimed were attempted, ended, held by another replica (the sweep's), or their
      // attempt before is not written yet (stillToTake, below).
      const jobs = await this.repo.claimMany(due.delivery_ids, due.attempt);
      if (jobs.length > 0) this.enqueueBatch(due.batch_id, jobs);
      const claimed = new Set(jobs.map((j) => j.deliveryId));
      const rest = due.delivery_ids.filter((id) => !claimed.has(id));
      // Those claimed now are leased: the fire that comes again claims only the rest.
      if (await this.stillToTake(rest, due.attempt)) {
        msg.nak(AGAIN_MS);
        return;
      }
      msg.ack();
    } catch (err) {
      this.log.warn({ err, batch_id: due.batch_id }, 'claiming a batch retry failed; it will come again');
      msg.nak(2000);
    }
  }

  /**
   * A timer is created before its attempt's failure is written, so that a crash between them still
   * retries on time; with a short delay or a slow write it can fire first, or while the write
   * commits. The fire then comes again shortly, until its attempt is taken.
   */
  private async stillToTake(deliveryIds: readonly string[], attempt: number): Promise<boolean> {
    return (await this.repo.awaitingAttempt(deliveryIds, attempt)).length > 0;
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
