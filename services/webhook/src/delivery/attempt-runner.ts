import {
  counter,
  endSpan,
  secondsHistogram,
  startBatchClientSpan,
  startClientSpan,
  startSpanInTrace,
  traceparentOf,
  withSpan,
  type Logger,
  type Span,
} from '@smsgw/platform';

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
};
import type { DeliveryJob, DeliveryRepository } from '../data/delivery.repository';
import type { RetryPolicy } from '../domain/retry-policy';
import { batchBody, envelopeBody } from '../domain/routing';
import { signBody } from '../domain/signature';
import type { Attempt } from './dispatcher';
import type { OutcomeWriter } from './outcome-writer';

/** One HTTPS POST with the platform's network rules (see `safePost`); never throws for a network outcome. */
export type Poster = (request: { url: string; body: string; headers: Record<string, string> }) => Promise<{
  ok: boolean;
  status?: number;
  latencyMs: number;
  error?: string;
}>;

export interface AttemptRunnerDeps {
  post: Poster;
  signingSecret: (clientId: string) => Promise<string>;
  outcomes: OutcomeWriter;
  repo: DeliveryRepository;
  policy: RetryPolicy;
  /** Creates the durable timer of the next attempt (the scheduler's). */
  scheduleRetry: (deliveryId: string, attempt: number, at: Date) => Promise<void>;
  /** Creates the durable timer of a batch's next attempt: one for all its deliveries. */
  scheduleBatchRetry: (batchId: string, deliveryIds: readonly string[], attempt: number, at: Date) => Promise<void>;
  /** Sends the alert of a dropped delivery. */
  alertDropped: (deliveryId: string) => Promise<void>;
  /** Sends the one alert of the deliveries of a batch dropped together. */
  alertDroppedBatch: (deliveryIds: readonly string[]) => Promise<void>;
  userAgent: string;
  log: Logger;
}

const attempts = counter(
  'webhook.attempts',
  "Webhook delivery attempts, by outcome (success, http_error, no_answer) and attempt number (a batch's POST counts one for each of its events)",
);
const attemptSeconds = secondsHistogram('webhook.attempt.duration', 'How long webhook attempts (POSTs) took, by outcome');
const dropped = counter('webhook.dropped', 'Webhook deliveries dropped after their last attempt (each sends an alert e-mail)');
// Exported from the start (as 0), so that rates and alerts see the series before the first drop.
dropped.add(0);

/** How long a delivery whose secret could not be read waits before the sweep tries it. */
const POSTPONE_MS = 30_000;

/**
 * Makes one attempt (one POST, of one delivery or of a batch of them) and
 * records what came of it for each delivery: success; a failure with the next
 * attempt's timer created first (so a crash right after still retries on
 * time); or, after the last attempt, the drop and its alert. A receiver's
 * answer to a batch is the answer for each of its events: they succeed, are
 * retried (together, on the same schedule) or are dropped together.
 */
export class AttemptRunner {
  constructor(private readonly deps: AttemptRunnerDeps) {}

  readonly run = (attempt: Attempt): Promise<void> =>
    attempt.batchId === null ? this.runOne(attempt.jobs[0]!) : this.runBatch(attempt.batchId, attempt.jobs);

  private readonly runOne = async (job: DeliveryJob): Promise<void> => {
    const { deps } = this;
    let secret = job.secret;
    if (secret === null && job.endpointId === null) {
      try {
        secret = await deps.signingSecret(job.clientId);
      } catch (err) {
        // Not an attempt: nothing left here, and the receiver must not pay for our outage.
        deps.log.warn({ err, delivery_id: job.deliveryId }, 'signing secret unavailable; delivery postponed');
        await deps.repo.postpone(job.deliveryId, new Date(Date.now() + POSTPONE_MS));
        return;
      }
    }
    if (secret === null) return; // its endpoint was deleted or disabled, which ended the delivery
    const attemptedAt = new Date();
    const body = envelopeBody(job.kind, job.eventId, attemptedAt, job.data);
    // A span of the event's trace; the receiver gets its context (`traceparent`) to go on with it.
    const span = startClientSpan('webhook deliver', job.traceparent ?? '', {
      'http.request.method': 'POST',
      'url.full': job.url, // exported without its query or user info (trace-redaction.ts)
      'server.address': hostOf(job.url),
      'smsgw.delivery_id': job.deliveryId,
      'smsgw.event_id': job.eventId,
      'smsgw.event': job.kind,
      'smsgw.webhook.attempt': job.attempt,
    });
    // Active while posting: the HTTP client span (and the `traceparent` the receiver gets) hangs under it.
    const result = await withSpan(span, () =>
      deps.post({
        url: job.url,
        body,
        headers: {
          traceparent: traceparentOf(span),
          'Content-Type': 'application/json',
          'User-Agent': deps.userAgent,
          'X-Webhook-Signature': signBody(secret, body),
          'X-Webhook-Event': job.kind,
          'X-Webhook-Event-Id': job.eventId,
          'X-Webhook-Delivery-Id': job.deliveryId,
          'X-Webhook-Attempt': String(job.attempt),
        },
      }),
    );
    const error = result.ok ? null : (result.error ?? `HTTP ${result.status}`);
    const outcome = result.ok ? 'success' : result.status ? 'http_error' : 'no_answer';
    attempts.add(1, { outcome, attempt: job.attempt });
    attemptSeconds.record(result.latencyMs / 1000, { outcome });
    if (result.status) span.setAttribute('http.response.status_code', result.status);
    endSpan(span, result.ok ? undefined : 'WEBHOOK_ATTEMPT_FAILED');
    let state: 'succeeded' | 'pending' | 'failed' = 'succeeded';
    let nextAttemptAt: Date | null = null;
    if (!result.ok) {
      nextAttemptAt = deps.policy.nextAttemptAt(job.attempt, new Date()) ?? null;
      state = nextAttemptAt ? 'pending' : 'failed';
      if (nextAttemptAt) {
        await deps.scheduleRetry(job.deliveryId, job.attempt + 1, nextAttemptAt).catch((err: unknown) => {
          // The sweep takes overdue deliveries: the retry is late, not lost.
          deps.log.warn({ err, delivery_id: job.deliveryId }, 'retry timer not created; the sweep will retry');
        });
      }
    }
    await deps.outcomes.record({
      deliveryId: job.deliveryId,
      attempt: job.attempt,
      attemptedAt,
      httpStatus: result.status ?? null,
      latencyMs: result.latencyMs,
      error,
      state,
      nextAttemptAt,
      batchId: null,
    });
    deps.log.debug(
      {
        delivery_id: job.deliveryId,
        event_id: job.eventId,
        attempt: job.attempt,
        status: result.status,
        latency_ms: Math.round(result.latencyMs),
        state,
      },
      'webhook attempt',
    );
    if (state === 'failed') {
      dropped.add(1);
      await deps
        .alertDropped(job.deliveryId)
        .catch((err: unknown) => deps.log.warn({ err, delivery_id: job.deliveryId }, 'alert not sent; the sweep will try again'));
    }
  };

  /**
   * One POST of a batch: a JSON array of the envelopes, signed once. Each event keeps a
   * `webhook deliver` span in its own trace; the POST is a span of its own, linked to them, whose
   * context the receiver gets.
   */
  private readonly runBatch = async (batchId: string, jobs: readonly DeliveryJob[]): Promise<void> => {
    const { deps } = this;
    // A delivery without a secret belongs to an endpoint deleted or disabled since, which ended it.
    const live = jobs.filter((j) => j.secret !== null);
    if (live.length === 0) return;
    const first = live[0]!;
    const secret = first.secret!;
    const attemptedAt = new Date();
    const body = batchBody(live.map((j) => envelopeBody(j.kind, j.eventId, attemptedAt, j.data)));
    const common = { 'smsgw.webhook.batch_id': batchId, 'smsgw.webhook.batch_size': live.length, 'smsgw.webhook.attempt': first.attempt };
    const items: Span[] = live.map((j) => {
      const item = startSpanInTrace('webhook deliver', j.traceparent ?? '');
      item.setAttributes({ ...common, 'smsgw.delivery_id': j.deliveryId, 'smsgw.event_id': j.eventId, 'smsgw.event': j.kind });
      return item;
    });
    const span = startBatchClientSpan('webhook deliver batch', items, {
      'http.request.method': 'POST',
      'url.full': first.url,
      'server.address': hostOf(first.url),
      ...common,
    });
    const result = await withSpan(span, () =>
      deps.post({
        url: first.url,
        body,
        headers: {
          traceparent: traceparentOf(span),
          'Content-Type': 'application/json',
          'User-Agent': deps.userAgent,
          'X-Webhook-Signature': signBody(secret, body),
          'X-Webhook-Batch-Size': String(live.length),
          'X-Webhook-Attempt': String(first.attempt),
        },
      }),
    );
    const error = result.ok ? null : (result.error ?? `HTTP ${result.status}`);
    const outcome = result.ok ? 'success' : result.status ? 'http_error' : 'no_answer';
    attempts.add(live.length, { outcome, attempt: first.attempt });
    attemptSeconds.record(result.latencyMs / 1000, { outcome });
    if (result.status) span.setAttribute('http.response.status_code', result.status);
    endSpan(span, result.ok ? undefined : 'WEBHOOK_ATTEMPT_FAILED');
    for (const item of items) endSpan(item, result.ok ? undefined : 'WEBHOOK_ATTEMPT_FAILED');
    const ids = live.map((j) => j.deliveryId);
    let state: 'succeeded' | 'pending' | 'failed' = 'succeeded';
    let nextAttemptAt: Date | null = null;
    if (!result.ok) {
      nextAttemptAt = deps.policy.nextAttemptAt(first.attempt, new Date()) ?? null;
      state = nextAttemptAt ? 'pending' : 'failed';
      if (nextAttemptAt) {
        await deps.scheduleBatchRetry(batchId, ids, first.attempt + 1, nextAttemptAt).catch((err: unknown) => {
          // The sweep takes overdue deliveries: the retry is late, not lost.
          deps.log.warn({ err, batch_id: batchId }, 'batch retry timer not created; the sweep will retry');
        });
      }
    }
    await Promise.all(
      live.map((j) =>
        deps.outcomes.record({
          deliveryId: j.deliveryId,
          attempt: j.attempt,
          attemptedAt,
          httpStatus: result.status ?? null,
          latencyMs: result.latencyMs,
          error,
          state,
          nextAttemptAt,
          batchId,
        }),
      ),
    );
    deps.log.debug(
      {
        batch_id: batchId,
        deliveries: live.length,
        attempt: first.attempt,
        status: result.status,
        latency_ms: Math.round(result.latencyMs),
        state,
      },
      'webhook batch attempt',
    );
    if (state === 'failed') {
      dropped.add(live.length);
      await deps
        .alertDroppedBatch(ids)
        .catch((err: unknown) => deps.log.warn({ err, batch_id: batchId }, 'alert not sent; the sweep will try again'));
    }
  };
}
