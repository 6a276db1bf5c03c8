// Over 300 lines: the outbox's states, its files and its restart rules (PROTOCOL.md §3) are one
// invariant, easier to check in one place than split.
import fs from 'node:fs/promises';
import path from 'node:path';
import { appendLineDurably, isErrnoCode, removeFileDurably, writeFileDurably } from './durable-file';
import { OutboxError } from './errors';
import {
  EXPIRED_ERROR,
  INTERRUPTED_SEND_ERROR,
  NEXT_STATES,
  parseEntry,
  smsOf,
  type OutboxEntry,
  type OutboxState,
  type PendingReport,
} from './outbox-entry';
import { isExpired, simOf, type Report, type ReportStatus, type Sms, type SmsError } from './protocol';
import type { SendRecord } from './send-record';

export { EXPIRED_ERROR, INTERRUPTED_SEND_ERROR, type OutboxEntry, type OutboxState, type PendingReport } from './outbox-entry';

export interface OutboxOptions {
  /** Whether the driver reports delivery. When it does not, `sent` is a final state. */
  deliveryReports: boolean;
  /** How many finished ids done.log keeps when it is compacted at start. */
  doneLogLimit?: number;
  now?: () => Date;
  /** The record of what was done with each SMS (protocol 7), written after each change of the outbox. */
  record?: SendRecord;
}

/** What the agent must do after a restart (PROTOCOL.md §3). */
export interface Recovery {
  /** Entries still `accepted` and not expired: sending them had not begun. In acceptance order. */
  toSend: Sms[];
  /** Entries left `sending`, now `failed` with DEVICE_ERROR. */
  failed: string[];
  /** Entries still `accepted` whose expiry had passed, now `failed` with EXPIRED and `not_sent`. */
  expired: string[];
}

// A hub re-offers an SMS only within its lease (30 s) or after a reconnect, so the ids of the
// last ten thousand finished SMS are far more than de-duplication needs.
const DEFAULT_DONE_LOG_LIMIT = 10_000;

/**
 * The durable outbox of PROTOCOL.md §3. Every change is on disk before the promise resolves;
 * changes run one at a time so that the file of an entry always holds its latest state.
 */
export class Outbox {
  private readonly entries = new Map<string, OutboxEntry>();
  private readonly done = new Set<string>();
  private readonly now: () => Date;
  private tail: Promise<void> = Promise.resolve();
  private nextSeq = 1;
  /** Files of the outbox directory that could not be read as entries; moved aside as `.corrupt`. */
  readonly corruptFiles: string[] = [];

  private constructor(
    private readonly directory: string,
    private readonly doneLog: string,
    private readonly options: OutboxOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /** Opens (creating if needed) the outbox of `dataDir` and loads its entries and done.log. */
  static async open(dataDir: string, options: OutboxOptions): Promise<Outbox> {
    const outbox = new Outbox(path.join(dataDir, 'outbox'), path.join(dataDir, 'done.log'), options);
    await outbox.load();
    return outbox;
  }

  /** True when this SMS is in the outbox or was finished earlier: it must not be sent again. */
  has(messageId: string): boolean {
    return this.entries.has(messageId) || this.done.has(messageId);
  }

  get(messageId: string): OutboxEntry | undefined {
    const entry = this.entries.get(messageId);
    return entry ? structuredClone(entry) : undefined;
  }

  /** Every entry still in the outbox, in acceptance order. */
  list(): OutboxEntry[] {
    return [...this.entries.values()].sort((a, b) => a.seq - b.seq).map((entry) => structuredClone(entry));
  }

  /**
   * Writes a new SMS as `accepted`. Resolves to false, writing nothing, when the id is already
   * known (in the outbox or finished): the caller acknowledges it again but must not send it.
   */
  accept(sms: Sms): Promise<boolean> {
    return this.serialize(async () => {
      if (this.has(sms.message_id)) return false;
      const entry: OutboxEntry = {
        message_id: sms.message_id,
        to: sms.to,
        text: sms.text,
        ...(sms.traceparent ? { traceparent: sms.traceparent } : {}),
        ...(sms.expires_at ? { expires_at: sms.expires_at } : {}),
        ...(sms.sim !== undefined ? { sim: sms.sim } : {}),
        state: 'accepted',
        pending_reports: [],
        updated_at: this.now().toISOString(),
        seq: this.nextSeq,
      };
      // The record first: a crash in between leaves an SMS the record lists but the outbox lacks,
      // which the hub leaves alone; the other way round the hub could send it again elsewhere.
      await this.options.record?.accepted(sms.message_id, this.now());
      await this.write(entry);
      this.nextSeq += 1;
      return true;
    });
  }

  markSending(messageId: string): Promise<void> {
    return this.serialize(() => this.transition(messageId, 'sending'));
  }

  /**
   * Moves an `accepted` entry to `sending`, unless its expiry has passed: it then becomes
   * `failed` with EXPIRED and `not_sent` instead, and the promise resolves to that report (the
   * caller must not send). Resolves to undefined once `sending` is on disk.
   */
  markSendingUnlessExpired(messageId: string): Promise<Report | undefined> {
    return this.serialize(async () => {
      const entry = this.entries.get(messageId);
      if (entry?.state === 'accepted' && isExpired(entry.expires_at, this.now())) {
        return this.recordNow(messageId, 'failed', this.expiredReport());
      }
      await this.transition(messageId, 'sending');
      return undefined;
    });
  }

  /** `sim`: the slot the SMS went through, when known; it goes in the report. */
  markSent(messageId: string, at: Date, sim?: number): Promise<Report> {
    return this.record(messageId, 'sent', { status: 'sent', at: at.toISOString(), ...simOf(sim) });
  }

  markDelivered(messageId: string, at: Date, sim?: number): Promise<Report> {
    return this.record(messageId, 'delivered', { status: 'delivered', at: at.toISOString(), ...simOf(sim) });
  }

  /** `notSent`: the phone is sure nothing of the SMS left it (PROTOCOL.md, `not_sent`). */
  markFailed(messageId: string, at: Date, error: SmsError, notSent = false, sim?: number): Promise<Report> {
    return this.record(messageId, 'failed', {
      status: 'failed',
      at: at.toISOString(),
      error,
      ...(notSent ? { not_sent: true } : {}),
      ...simOf(sim),
    });
  }

  /**
   * The hub recorded this report: forget it. An entry in its final state with nothing left to
   * report leaves the outbox, and its id goes to done.log so that a re-offer is never sent.
   */
  ackReport(messageId: string, status: ReportStatus): Promise<void> {
    return this.serialize(async () => {
      const entry = this.entries.get(messageId);
      // Acks are idempotent: a second one for a forgotten report changes nothing.
      if (!entry || !entry.pending_reports.some((report) => report.status === status)) return;
      const updated: OutboxEntry = {
        ...entry,
        pending_reports: entry.pending_reports.filter((report) => report.status !== status),
        updated_at: this.now().toISOString(),
      };
      if (this.isFinished(updated)) {
        await this.retire(updated);
      } else {
        await this.write(updated);
      }
    });
  }

  /**
   * The SMS left `sent` while the driver reports delivery, in acceptance order: their delivery
   * report is still to come, also after a restart (PROTOCOL.md §3).
   */
  awaitingDelivery(): Sms[] {
    if (!this.options.deliveryReports) return [];
    return this.list()
      .filter((entry) => entry.state === 'sent')
      .map(smsOf);
  }

  /** Every report the hub has not acknowledged, in acceptance order then in order of events. */
  pendingReports(): Report[] {
    return this.list().flatMap((entry) =>
      entry.pending_reports.map((report) => ({
        message_id: entry.message_id,
        ...report,
        ...(entry.traceparent ? { traceparent: entry.traceparent } : {}),
      })),
    );
  }

  /**
   * Applies the start-up rules of PROTOCOL.md §3: `accepted` entries are to be sent (those whose
   * expiry has passed become `failed` with EXPIRED and `not_sent` instead), `sending` ones become
   * `failed` with DEVICE_ERROR because sending them again could send them twice.
   */
  recover(): Promise<Recovery> {
    return this.serialize(async () => {
      const recovery: Recovery = { toSend: [], failed: [], expired: [] };
      for (const entry of [...this.entries.values()].sort((a, b) => a.seq - b.seq)) {
        if (entry.state === 'accepted' && isExpired(entry.expires_at, this.now())) {
          await this.transition(entry.message_id, 'failed', this.expiredReport());
          recovery.expired.push(entry.message_id);
        } else if (entry.state === 'accepted') {
          recovery.toSend.push(smsOf(entry));
        } else if (entry.state === 'sending') {
          await this.transition(entry.message_id, 'failed', {
            status: 'failed',
            at: this.now().toISOString(),
            error: INTERRUPTED_SEND_ERROR,
          });
          recovery.failed.push(entry.message_id);
        } else if (this.isFinished(entry)) {
          // Left over by a crash between done.log and the file removal, or by a change of driver
          // that made `sent` final.
          await this.retire(entry);
        }
      }
      return recovery;
    });
  }

  /** Resolves once every change asked for so far is on disk. */
  async flush(): Promise<void> {
    await this.tail;
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Moves to `state` with a report to send; resolves to that report once both are on disk. */
  private record(messageId: string, state: OutboxState, report: PendingReport): Promise<Report> {
    return this.serialize(() => this.recordNow(messageId, state, report));
  }

  /** record() for a caller already serialized. */
  private async recordNow(messageId: string, state: OutboxState, report: PendingReport): Promise<Report> {
    await this.transition(messageId, state, report);
    const traceparent = this.entries.get(messageId)?.traceparent;
    return { message_id: messageId, ...report, ...(traceparent ? { traceparent } : {}) };
  }

  private expiredReport(): PendingReport {
    return { status: 'failed', at: this.now().toISOString(), error: EXPIRED_ERROR, not_sent: true };
  }

  private async transition(messageId: string, state: OutboxState, report?: PendingReport): Promise<void> {
    const entry = this.entries.get(messageId);
    if (!entry) throw new OutboxError(`message ${messageId} is not in the outbox`);
    if (!NEXT_STATES[entry.state].includes(state)) {
      throw new OutboxError(`message ${messageId} cannot go from ${entry.state} to ${state}`);
    }
    const updated: OutboxEntry = {
      ...entry,
      state,
      pending_reports: report ? [...entry.pending_reports, report] : entry.pending_reports,
      updated_at: this.now().toISOString(),
    };
    await this.write(updated);
    await this.recordTransition(messageId, state, report);
  }

  private async recordTransition(messageId: string, state: OutboxState, report?: PendingReport): Promise<void> {
    const record = this.options.record;
    if (!record) return;
    const at = report ? new Date(report.at) : this.now();
    if (state === 'sending') await record.sending(messageId, at);
    else if (state === 'sent') await record.sent(messageId, at, report?.sim);
    else if (state === 'delivered') await record.delivered(messageId, at, report?.sim);
    else if (state === 'failed' && report?.error) await record.failed(messageId, at, report.error, report.not_sent === true, report.sim);
  }

  private isFinished(entry: OutboxEntry): boolean {
    const final = entry.state === 'delivered' || entry.state === 'failed' || (entry.state === 'sent' && !this.options.deliveryReports);
    return final && entry.pending_reports.length === 0;
  }

  private async write(entry: OutboxEntry): Promise<void> {
    await writeFileDurably(this.fileOf(entry.message_id), `${JSON.stringify(entry)}\n`);
    this.entries.set(entry.message_id, entry);
  }

  private async retire(entry: OutboxEntry): Promise<void> {
    // done.log first: a crash in between leaves the id known twice, never forgotten.
    await appendLineDurably(this.doneLog, encodeURIComponent(entry.message_id));
    this.done.add(entry.message_id);
    await removeFileDurably(this.fileOf(entry.message_id));
    this.entries.delete(entry.message_id);
  }

  private fileOf(messageId: string): string {
    // Ids come from the network: encoding keeps a `/` or a newline from escaping the directory.
    return path.join(this.directory, `${encodeURIComponent(messageId)}.json`);
  }

  private async load(): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true, mode: 0o700 });
    for (const name of await fs.readdir(this.directory)) {
      const file = path.join(this.directory, name);
      if (name.endsWith('.tmp')) {
        // A write cut short by a crash; the previous version (if any) is intact.
        await fs.rm(file, { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const entry = parseEntry(await fs.readFile(file, 'utf8'));
      if (!entry || `${encodeURIComponent(entry.message_id)}.json` !== name) {
        await fs.rename(file, `${file}.corrupt`);
        this.corruptFiles.push(name);
        continue;
      }
      this.entries.set(entry.message_id, entry);
      this.nextSeq = Math.max(this.nextSeq, entry.seq + 1);
    }
    await this.loadDoneLog();
  }

  private async loadDoneLog(): Promise<void> {
    let content: string;
    try {
      content = await fs.readFile(this.doneLog, 'utf8');
    } catch (error) {
      if (isErrnoCode(error, 'ENOENT')) return;
      throw error;
    }
    const ids: string[] = [];
    for (const line of content.split('\n')) {
      if (line === '') continue;
      try {
        ids.push(decodeURIComponent(line));
      } catch {
        // The last line of a crash during an append; that id is still in the outbox directory.
      }
    }
    const limit = this.options.doneLogLimit ?? DEFAULT_DONE_LOG_LIMIT;
    const kept = ids.length > 2 * limit ? ids.slice(-limit) : ids;
    if (kept !== ids) {
      await writeFileDurably(this.doneLog, kept.map((id) => `${encodeURIComponent(id)}\n`).join(''));
    }
    for (const id of kept) this.done.add(id);
  }
}
