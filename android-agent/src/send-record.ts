import fs from 'node:fs/promises';
import path from 'node:path';
import { appendLineDurably, isErrnoCode, writeFileDurably } from './durable-file';
import type { SmsError } from './protocol';

/** What the phone did with an SMS it was handed, as the digest tells it (protocol 7). */
export type RecordState = 'accepted' | 'sending' | 'sent' | 'delivered' | 'failed';

/** One SMS of the record: its state and its parts' counts, with the time of each step. */
export interface RecordEntry {
  message_id: string;
  state: RecordState;
  parts: number;
  parts_sent: number;
  parts_failed: number;
  parts_delivered: number;
  /** RFC 3339: when the phone wrote it to its outbox (the hand-over). */
  accepted_at: string;
  sent_at?: string;
  delivered_at?: string;
  failed_at?: string;
  error?: SmsError;
  not_sent?: boolean;
  sim?: number;
}

/** A line of `record.log`: an event of one SMS, or (first line) the time the record begins. */
type RecordLine =
  | { since: string }
  | { id: string; ev: 'accepted'; at: string; parts?: number }
  | { id: string; ev: 'sending'; at: string }
  | { id: string; ev: 'sent' | 'delivered'; at: string; sim?: number }
  | { id: string; ev: 'failed'; at: string; error: SmsError; not_sent?: boolean; sim?: number };

export interface SendRecordOptions {
  /** How long an SMS stays in the record after its hand-over (default 6 hours). */
  keepMs?: number;
  now?: () => Date;
}

export const DEFAULT_RECORD_KEEP_MS = 6 * 3600_000;

/**
 * The durable record of what the phone did with each SMS it was handed (PROTOCOL.md, version 7):
 * an append-only `record.log` (each line fsynced before the promise resolves), folded into one
 * entry per SMS, bounded to the SMS handed over in the last `keepMs`. Its first line says since
 * when it is complete: the digest's `covers_from` never goes further back, so the hub can trust
 * that an SMS handed over since then and missing from it never reached this phone's outbox.
 */
export class SendRecord {
  private readonly entries = new Map<string, RecordEntry>();
  private since!: Date;
  private readonly now: () => Date;
  private readonly keepMs: number;
  private lines = 0;
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: string,
    options: SendRecordOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.keepMs = options.keepMs ?? DEFAULT_RECORD_KEEP_MS;
  }

  static async open(dataDir: string, options: SendRecordOptions = {}): Promise<SendRecord> {
    const record = new SendRecord(path.join(dataDir, 'record.log'), options);
    await record.load();
    return record;
  }

  /** The time from which the record is complete: its start, or the oldest hand-over it still keeps. */
  coversFrom(): Date {
    const cutoff = this.now().getTime() - this.keepMs;
    return new Date(Math.max(this.since.getTime(), cutoff));
  }

  get(messageId: string): RecordEntry | undefined {
    const entry = this.entries.get(messageId);
    return entry ? { ...entry } : undefined;
  }

  /** The kept entries, oldest hand-over first. */
  list(): RecordEntry[] {
    const from = this.coversFrom().getTime();
    return [...this.entries.values()]
      .filter((entry) => Date.parse(entry.accepted_at) >= from)
      .sort((a, b) => a.accepted_at.localeCompare(b.accepted_at))
      .map((entry) => ({ ...entry }));
  }

  accepted(messageId: string, at: Date, parts = 1): Promise<void> {
    return this.append({ id: messageId, ev: 'accepted', at: at.toISOString(), ...(parts !== 1 ? { parts } : {}) });
  }

  sending(messageId: string, at: Date): Promise<void> {
    return this.append({ id: messageId, ev: 'sending', at: at.toISOString() });
  }

  sent(messageId: string, at: Date, sim?: number): Promise<void> {
    return this.append({ id: messageId, ev: 'sent', at: at.toISOString(), ...(sim !== undefined ? { sim } : {}) });
  }

  delivered(messageId: string, at: Date, sim?: number): Promise<void> {
    return this.append({ id: messageId, ev: 'delivered', at: at.toISOString(), ...(sim !== undefined ? { sim } : {}) });
  }

  failed(messageId: string, at: Date, error: SmsError, notSent: boolean, sim?: number): Promise<void> {
    return this.append({
      id: messageId,
      ev: 'failed',
      at: at.toISOString(),
      error,
      ...(notSent ? { not_sent: true } : {}),
      ...(sim !== undefined ? { sim } : {}),
    });
  }

  async flush(): Promise<void> {
    await this.tail;
  }

  private append(line: RecordLine): Promise<void> {
    const run = this.tail.then(async () => {
      await appendLineDurably(this.file, JSON.stringify(line));
      this.lines += 1;
      this.fold(line);
      if (this.lines > 2 * this.entries.size + 1000) await this.compact();
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private fold(line: RecordLine): void {
    if ('since' in line) return;
    if (line.ev === 'accepted') {
      if (!this.entries.has(line.id)) {
        const parts = line.parts ?? 1;
        this.entries.set(line.id, {
          message_id: line.id,
          state: 'accepted',
          parts,
          parts_sent: 0,
          parts_failed: 0,
          parts_delivered: 0,
          accepted_at: line.at,
        });
      }
      return;
    }
    const entry = this.entries.get(line.id);
    if (!entry) return;
    if ('sim' in line && line.sim !== undefined) entry.sim = line.sim;
    switch (line.ev) {
      case 'sending':
        if (entry.state === 'accepted') entry.state = 'sending';
        return;
      case 'sent':
        entry.parts_sent = entry.parts;
        entry.sent_at = line.at;
        if (entry.state === 'accepted' || entry.state === 'sending') entry.state = 'sent';
        return;
      case 'delivered':
        entry.parts_delivered = entry.parts;
        entry.delivered_at = line.at;
        if (entry.state !== 'failed') entry.state = 'delivered';
        return;
      case 'failed':
        entry.parts_failed = Math.max(1, entry.parts - entry.parts_sent);
        entry.failed_at = line.at;
        entry.error = line.error;
        if (line.not_sent) entry.not_sent = true;
        if (entry.state !== 'delivered') entry.state = 'failed';
        return;
    }
  }

  /** Rewrites the file with the kept entries only (as lines that fold back into them). */
  private async compact(): Promise<void> {
    const from = this.coversFrom();
    for (const [id, entry] of this.entries) {
      if (Date.parse(entry.accepted_at) < from.getTime()) this.entries.delete(id);
    }
    this.since = from;
    const lines: RecordLine[] = [{ since: from.toISOString() }];
    for (const entry of this.entries.values()) lines.push(...linesOf(entry));
    await writeFileDurably(this.file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    this.lines = lines.length;
  }

  private async load(): Promise<void> {
    let content: string;
    try {
      content = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if (!isErrnoCode(error, 'ENOENT')) throw error;
      // A new record is complete from now on, not before: SMS handed over earlier are not in it.
      this.since = this.now();
      await writeFileDurably(this.file, `${JSON.stringify({ since: this.since.toISOString() })}\n`);
      this.lines = 1;
      return;
    }
    let since: Date | undefined;
    for (const text of content.split('\n')) {
      if (text === '') continue;
      let line: RecordLine;
      try {
        line = JSON.parse(text) as RecordLine;
      } catch {
        // The last line of a crash during an append: the event it held is reported again anyway.
        continue;
      }
      this.lines += 1;
      if ('since' in line) {
        since ??= new Date(line.since);
        continue;
      }
      this.fold(line);
    }
    // A record without its first line cannot say since when it is complete: from now on.
    this.since = since && !Number.isNaN(since.getTime()) ? since : this.now();
    await this.compact();
  }
}

function linesOf(entry: RecordEntry): RecordLine[] {
  const id = entry.message_id;
  const sim = entry.sim !== undefined ? { sim: entry.sim } : {};
  const lines: RecordLine[] = [{ id, ev: 'accepted', at: entry.accepted_at, ...(entry.parts !== 1 ? { parts: entry.parts } : {}) }];
  if (entry.state === 'sending') lines.push({ id, ev: 'sending', at: entry.accepted_at });
  if (entry.sent_at) lines.push({ id, ev: 'sent', at: entry.sent_at, ...sim });
  if (entry.delivered_at) lines.push({ id, ev: 'delivered', at: entry.delivered_at, ...sim });
  if (entry.failed_at && entry.error) {
    lines.push({ id, ev: 'failed', at: entry.failed_at, error: entry.error, ...(entry.not_sent ? { not_sent: true } : {}), ...sim });
  }
  return lines;
}
