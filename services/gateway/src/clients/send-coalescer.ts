import { status as grpcStatus } from '@grpc/grpc-js';
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
   * Longest a send may take in all, from `send()` to its answer: the time it
   * waits for a call counts against it. A call's gRPC deadline is the
   * earliest deadline of the sends it carries.
   */
  deadlineMs: number;
  /**
   * A send with less time left than this is not put in a call: it is refused
   * with SERVICE_UNAVAILABLE and never sent (its call could not finish in
   * time, and storing it late, once its client has given up, could send the
   * SMS twice).
   */
  minCallMs: number;
}

/** The SendMany call, with the deadline it must keep (milliseconds from now). */
type SendMany = (request: message.SendManyRequest, deadlineMs: number) => Promise<message.SendManyResponse__Output>;

interface Waiting {
  item: message.SendManyItem;
  /** The API request's span, linked both ways with the span of the call that carries it. */
  span: Span | undefined;
  /** When its time is up (performance.now() clock). */
  deadline: number;
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
 * accepted is lost. No send takes longer than `deadlineMs` in all: the call
 * that carries it has the earliest deadline of its sends. When the message
 * service falls behind, the queue is bounded in length (`maxWaiting`) and in
 * time: a send past `maxWaiting`, or with less than `minCallMs` left, is
 * refused with SERVICE_UNAVAILABLE and never sent. A call that fails after it
 * left (its deadline passed) has an unknown outcome: its messages may be
 * stored, and a retry with the same Idempotency-Key finds them.
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
      this.waiting.push({
        item: { request, traceparent: currentTraceparent() },
        span: activeSpan(),
        deadline: performance.now() + this.options.deadlineMs,
        resolve,
        reject,
      });
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
    // Sends too close to their deadline for a call to finish in time leave no more.
    const latest = performance.now() + this.options.minCallMs;
    if (this.waiting.some((w) => w.deadline < latest)) {
      const late = this.waiting.filter((w) => w.deadline < latest);
      this.waiting = this.waiting.filter((w) => w.deadline >= latest);
      for (const w of late) w.reject(unavailable());
    }
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
    const span = startRootSpan(
      'gateway.send.gathered',
      batch.flatMap((w) => (w.span ? [w.span.spanContext()] : [])),
    );
    span.setAttribute('smsgw.send.gathered', batch.length);
    for (const w of batch) w.span?.addLink({ context: span.spanContext() });
    try {
      // The call may take only as long as the send nearest its deadline has left.
      const deadlineMs = Math.max(1, Math.min(...batch.map((w) => w.deadline)) - performance.now());
      const { results } = await withSpan(span, () => this.sendMany({ items: batch.map((w) => w.item) }, deadlineMs));
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
      const answer = outcomeUnknown(err);
      for (const w of batch) w.reject(answer);
      endSpan(span, err instanceof AppError ? err.code : 'INTERNAL_ERROR');
    }
  }
}

/**
 * A call that ran out of time may have stored its messages: the answer says
 * so, and that a retry with the same Idempotency-Key will find them. Other
 * failures are returned as they are.
 */
export function outcomeUnknown(err: unknown): unknown {
  if (!deadlineExceeded(err)) return err;
  const answer = new AppError('SERVICE_UNAVAILABLE', {
    message:
      "Délai dépassé : le message a peut-être été enregistré. Réessayez avec le même en-tête Idempotency-Key : s'il l'a été, la réponse le rendra sans l'envoyer deux fois.",
    retryAfterSeconds: 1,
    cause: err,
  });
  unknownOutcomes.add(answer);
  return answer;
}

const unknownOutcomes = new WeakSet<object>();

function deadlineExceeded(err: unknown): boolean {
  return (
    err instanceof AppError &&
    err.code === 'SERVICE_UNAVAILABLE' &&
    (err.cause as { code?: unknown } | undefined)?.code === grpcStatus.DEADLINE_EXCEEDED
  );
}

/** Whether a failed send may have stored its messages all the same (out of time, answered or not yet by `outcomeUnknown`). */
export function mayHaveBeenStored(err: unknown): boolean {
  return deadlineExceeded(err) || (typeof err === 'object' && err !== null && unknownOutcomes.has(err));
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 1 });
}

function itemError(result: message.SendManyResult__Output): AppError {
  if (isErrorCode(result.errorCode)) return new AppError(result.errorCode, { message: result.errorMessage || undefined });
  return new AppError('INTERNAL_ERROR', { cause: new Error(`SendMany item failed without a known code: ${result.errorCode}`) });
}
