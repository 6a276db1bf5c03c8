import type { Nats, PromiseClient } from '@smsgw/platform';
import type { scheduler } from '@smsgw/proto';
import {
  BATCH_RETRY_SUBJECT,
  batchRetryTimerKey,
  RETRY_SUBJECT,
  retryTimerKey,
  type BatchRetryPayload,
  type RetryPayload,
} from './timer.consumer';

/**
 * The next attempt of a delivery as a durable timer of the scheduler: fired at `at` on the
 * platform's `timers.webhook.retry`, where TimerConsumer takes it. Its key makes a second
 * creation of the same attempt's timer a no-op.
 */
export function retryScheduler(
  timers: PromiseClient<scheduler.SchedulerServiceClient>,
  nats: Pick<Nats, 'names'>,
): (deliveryId: string, attempt: number, at: Date) => Promise<void> {
  return async (deliveryId, attempt, at) => {
    const payload: RetryPayload = { delivery_id: deliveryId, attempt };
    await timers.createTimer({
      key: retryTimerKey(deliveryId, attempt),
      fireAt: at.toISOString(),
      subject: nats.names.timer(RETRY_SUBJECT),
      payload: Buffer.from(JSON.stringify(payload)),
    });
  };
}

/**
 * The next attempt of a batch's deliveries as one durable timer (fired on
 * `timers.webhook.retry-batch`): their ids travel in its payload, so that the
 * batch is claimed and posted again whole.
 */
export function batchRetryScheduler(
  timers: PromiseClient<scheduler.SchedulerServiceClient>,
  nats: Pick<Nats, 'names'>,
): (batchId: string, deliveryIds: readonly string[], attempt: number, at: Date) => Promise<void> {
  return async (batchId, deliveryIds, attempt, at) => {
    const payload: BatchRetryPayload = { batch_id: batchId, delivery_ids: [...deliveryIds], attempt };
    await timers.createTimer({
      key: batchRetryTimerKey(batchId, attempt),
      fireAt: at.toISOString(),
      subject: nats.names.timer(BATCH_RETRY_SUBJECT),
      payload: Buffer.from(JSON.stringify(payload)),
    });
  };
}
