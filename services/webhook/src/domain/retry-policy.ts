/**
 * Attempt 1 at once, then one attempt after each of `delaysMs` (1 and 5
 * minutes by default, counted from the failed attempt), then the event is
 * dropped and the account alerted.
 */
export class RetryPolicy {
  constructor(private readonly delaysMs: readonly number[]) {}

  get maxAttempts(): number {
    return this.delaysMs.length + 1;
  }

  /** When the attempt after failed attempt `attempt` is due; undefined when it was the last. */
  nextAttemptAt(attempt: number, failedAt: Date): Date | undefined {
    const delay = this.delaysMs[attempt - 1];
    return delay === undefined ? undefined : new Date(failedAt.getTime() + delay);
  }
}
