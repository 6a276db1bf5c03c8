import { untraced } from '@smsgw/platform';
import type { AttemptOutcome, DeliveryRepository } from '../data/delivery.repository';

/**
 * Gathers the outcomes of attempts that end together into one transaction:
 * at a thousand attempts a second, one commit each would be the bottleneck.
 * `record` resolves once its outcome is committed.
 */
export class OutcomeWriter {
  private pending: { outcome: AttemptOutcome; done: (err?: Error) => void }[] = [];
  private flushing?: Promise<void>;

  constructor(
    private readonly repo: DeliveryRepository,
    private readonly maxBatch = 500,
  ) {}

  record(outcome: AttemptOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ outcome, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) this.flushing = this.flushLoop();
    });
  }

  private async flushLoop(): Promise<void> {
    // Outcomes that arrive while a batch is being written wait for the next one.
    await new Promise((r) => setImmediate(r));
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        // One statement for many attempts, each with a span of its own (webhook deliver): it makes none.
        await untraced(() => this.repo.recordOutcomes(batch.map((b) => b.outcome)));
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err instanceof Error ? err : new Error(String(err)));
      }
    }
    this.flushing = undefined;
  }

  /** Resolves once everything recorded so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}
