/**
 * Long messages sent in parts (UDH concatenation, or the SAR options): the parts of one message
 * gathered until all have come, then joined in order into one text. A message whose parts have not
 * all come within `timeoutMs` of its first is given up. Pure: the caller passes the time.
 */

export interface PartInfo {
  /** The message's reference, with what makes it unique to its sender (session, addresses). */
  key: string;
  total: number;
  seq: number;
}

interface Gathering<T> {
  total: number;
  texts: (string | undefined)[];
  waiting: T[];
  startedAt: number;
}

export type Added<T> = { kind: 'waiting' } | { kind: 'complete'; text: string; waiting: T[] } | { kind: 'invalid' };

export class Reassembly<T> {
  private readonly gatherings = new Map<string, Gathering<T>>();

  constructor(private readonly options: { timeoutMs: number; maxMessages: number }) {}

  get size(): number {
    return this.gatherings.size;
  }

  /**
   * One part: `waiting` until the last one comes (`holder`, what the caller answers once the
   * message is complete, is kept), then `complete` with every holder; `invalid` for a part that
   * does not fit (out of range, another total than its message's, a part given twice), or past
   * `maxMessages` messages under way.
   */
  add(part: PartInfo, text: string, holder: T, now: number): Added<T> {
    if (part.total < 1 || part.total > 255 || part.seq < 1 || part.seq > part.total) return { kind: 'invalid' };
    let g = this.gatherings.get(part.key);
    if (!g) {
      if (this.gatherings.size >= this.options.maxMessages) return { kind: 'invalid' };
      g = { total: part.total, texts: new Array<string | undefined>(part.total).fill(undefined), waiting: [], startedAt: now };
      this.gatherings.set(part.key, g);
    }
    if (g.total !== part.total || g.texts[part.seq - 1] !== undefined) return { kind: 'invalid' };
    g.texts[part.seq - 1] = text;
    g.waiting.push(holder);
    if (g.texts.some((t) => t === undefined)) return { kind: 'waiting' };
    this.gatherings.delete(part.key);
    return { kind: 'complete', text: g.texts.join(''), waiting: g.waiting };
  }

  /** The holders of every message given up by `now`. */
  expire(now: number): T[] {
    const expired: T[] = [];
    for (const [key, g] of this.gatherings) {
      if (now - g.startedAt >= this.options.timeoutMs) {
        this.gatherings.delete(key);
        expired.push(...g.waiting);
      }
    }
    return expired;
  }

  /** Every holder, the gatherings dropped (a session that ends). */
  drain(): T[] {
    const all = [...this.gatherings.values()].flatMap((g) => g.waiting);
    this.gatherings.clear();
    return all;
  }
}
