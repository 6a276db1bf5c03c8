/**
 * A small in-process cache of answers that expire: an entry is served for its time to live, then
 * forgotten; past `maxEntries` the oldest entry goes first, so the cache never grows without
 * bound, whatever keys callers send.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(private readonly options: { maxEntries: number; ttlMs?: number }) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` for `ttlMs` (the cache's default when not given); 0 or less keeps nothing. */
  set(key: string, value: V, ttlMs = this.options.ttlMs ?? 0): void {
    if (ttlMs <= 0) return;
    // A key set again moves to the end: it is the newest.
    this.entries.delete(key);
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, until: Date.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
