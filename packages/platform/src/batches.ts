/**
 * Work asked for one key at a time and done for many keys at once. The keys added while a batch
 * is on its way, or within `delayMs` of the first one, go together to `run`, and every caller gets
 * that batch's answer. A fleet of phones connecting or answering pings then costs a few round
 * trips a second instead of one each, and no promise of its own per call.
 *
 *   const lookups = new Batches<string, string, Row>(async (keys) => rowsByKey([...keys.keys()]));
 *   const row = (await lookups.add(lookup, lookup)).get(lookup);
 *
 * A key added twice before its batch leaves keeps the last value. One batch runs at a time: the
 * next one leaves when the current one ends or at its own time, whichever is later.
 */
export class Batches<K, V, R> {
  private pending = new Map<K, V>();
  private next = new Batch<K, R>();
  private running = false;
  private immediate?: NodeJS.Immediate;
  private timer?: NodeJS.Timeout;
  /** When the next batch leaves (ms since the epoch); undefined when none is waiting to. */
  private dueAt?: number;

  constructor(
    private readonly run: (items: ReadonlyMap<K, V>) => Promise<ReadonlyMap<K, R>>,
    /** A batch that failed, with its size; its callers get the error too. */
    private readonly onFailed?: (err: unknown, size: number) => void,
  ) {}

  /**
   * Adds the key to the next batch; resolves with that batch's answers once it has run. With
   * `delayMs` 0 the batch leaves at the next turn of the event loop; otherwise it waits that long
   * for more keys (a key added meanwhile with a shorter delay makes it leave sooner).
   */
  add(key: K, value: V, delayMs = 0): Promise<ReadonlyMap<K, R>> {
    this.pending.set(key, value);
    const batch = this.next;
    const at = Date.now() + delayMs;
    if (this.dueAt === undefined || at < this.dueAt) {
      this.dueAt = at;
      // While a batch runs, the next one waits for it: it leaves when the run ends, or at its time.
      if (!this.running) this.arm();
    }
    return batch.done;
  }

  /** Takes the key out of the next batch when its value `matches` (a batch already on its way is not changed). */
  drop(key: K, matches: (value: V) => boolean): void {
    if (this.pending.has(key) && matches(this.pending.get(key) as V)) this.pending.delete(key);
  }

  /** Makes the next batch leave at `dueAt`. */
  private arm(): void {
    clearImmediate(this.immediate);
    clearTimeout(this.timer);
    const wait = (this.dueAt ?? 0) - Date.now();
    if (wait <= 0) this.immediate = setImmediate(() => void this.runNext());
    else this.timer = setTimeout(() => void this.runNext(), wait).unref();
  }

  /** Runs the next batch (its callers whose keys were all dropped just get an empty answer), then arms the one after. */
  private async runNext(): Promise<void> {
    this.immediate = undefined;
    this.timer = undefined;
    this.dueAt = undefined;
    const items = this.pending;
    const batch = this.next;
    this.pending = new Map();
    this.next = new Batch();
    if (items.size === 0) {
      batch.resolve(new Map());
    } else {
      this.running = true;
      try {
        batch.resolve(await this.run(items));
      } catch (err) {
        this.onFailed?.(err, items.size);
        batch.reject(err);
      }
      this.running = false;
    }
    if (this.dueAt !== undefined) this.arm();
  }
}

/** The callers of one batch: one promise for all of them. */
class Batch<K, R> {
  resolve!: (answers: ReadonlyMap<K, R>) => void;
  reject!: (err: unknown) => void;
  readonly done = new Promise<ReadonlyMap<K, R>>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });

  constructor() {
    // Each caller handles the failure; a batch whose callers went away must not crash the process.
    this.done.catch(() => undefined);
  }
}
