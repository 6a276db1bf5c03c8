import { AppError, activeSpan, currentTraceparent, endSpan, isErrorCode, startRootSpan, withSpan, type Span } from '@smsgw/platform';
import type { message } from '@smsgw/proto';

export interface SendCoalescerOptions {
  /** Sends carried by one call at most. */
  maxBatch: number;
  /** Calls under way at once; while they run, new sends wait and leave together. */
  maxInFlight: number;
  /**
   * Sends allowed to wait at once; past it a send is refused at once with
   * SERVICE_UNAVAILABLE, so a stalled message service cannot pile up requests.
   */
  maxWaiting: number;
  /**
   * Longest a send may wait for a call to leave in: older ones are refused
   * with SERVICE_UNAVAILABLE and never sent (their client has likely given up
   * and may retry; storing them late would send the SMS twice).
   */
  maxWaitMs: number;
}

type SendMany = (request: message.SendManyRequest) => Promise<message.SendManyResponse__Output>;

interface Waiting {
  item: message.SendManyItem;
  /** The API request's span, linked both ways with the span of the call that carries it. */
  span: Span | undefined;
  /** When it began to wait (performance.now()). */
  since: number;
  resolve(receipt: message.SendReceipt__Output): void;
  reject(err: unknown): void;
}

/**
 * Gathers the single sends that arrive together into one `SendMany` call,
 * which the message service stores in one statement (group commit). Under
 * light load each send leaves alone on the next turn of the event loop, so it
 * waits for nothing; under heavy load, while `maxInFlight` calls run, the new
 * sends queue here and leave together in the next call: fewer round trips,
 * transactions and WAL flushes per message. Every send still gets its own
 * answer: its receipt, or its own error, or the call's error when the call
 * fails. Each send is answered only once its message is stored, so nothing
 * accepted is lost. When the message service falls behind, the queue is
 * bounded in length (`maxWaiting`) and in time (`maxWaitMs`): a send past
 * either is refused with SERVICE_UNAVAILABLE and never sent.
 */
export class SendCoalescer {
  private waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly sendMany: SendMany,
    private readonly options: SendCoalescerOptions,
  ) {}

  send(request: message.SendRequest): Promise<message.SendReceipt__Output> {
    if (this.waiting.length >= this.options.maxWaiting) return Promise.reject(unavailable());
    return new Promise((resolve, reject) => {
      this.waiting.push({ item: { request, traceparent: currentTraceparent() }, span: activeSpan(), since: performance.now(), resolve, reject });
      this.schedule();
    });
  }

  /** Sends waiting for a call, for tests and metrics. */
  get pending(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    // The oldest wait at the head.
    const tooOld = performance.now() - this.options.maxWaitMs;
    let stale = 0;
    while (stale < this.waiting.length && this.waiting[stale]!.since < tooOld) stale++;
    if (stale > 0) for (const w of this.waiting.splice(0, stale)) w.reject(unavailable());
    while (this.waiting.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.dispatch(batch).finally(() => {
        this.inFlight--;
        if (this.waiting.length > 0) this.schedule();
      });
    }
  }

  private async dispatch(batch: Waiting[]): Promise<void> {
    // The call belongs to no single request: a trace of its own, linked to each request's.
    const span = startRootSpan('gateway.send.gathered', batch.flatMap((w) => (w.span ? [w.span.spanContext()] : [])));
    span.setAttribute('smsgw.send.gathered', batch.length);
    for (const w of batch) w.span?.addLink({ context: span.spanContext() });
    try {
      const { results } = await withSpan(span, () => this.sendMany({ items: batch.map((w) => w.item) }));
      if (results.length !== batch.length) {
        throw new AppError('INTERNAL_ERROR', { cause: new Error(`SendMany answered ${results.length} results for ${batch.length} sends`) });
      }
      batch.forEach((w, i) => {
        const result = results[i]!;
        if (result.receipt && !result.errorCode) w.resolve(result.receipt);
        else w.reject(itemError(result));
      });
      endSpan(span);
    } catch (err) {
      for (const w of batch) w.reject(err);
      endSpan(span, err instanceof AppError ? err.code : 'INTERNAL_ERROR');
    }
  }
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 1 });
}

function itemError(result: message.SendManyResult__Output): AppError {
  if (isErrorCode(result.errorCode)) return new AppError(result.errorCode, { message: result.errorMessage || undefined });
  return new AppError('INTERNAL_ERROR', { cause: new Error(`SendMany item failed without a known code: ${result.errorCode}`) });
}
