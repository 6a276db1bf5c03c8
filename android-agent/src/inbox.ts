import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { removeFileDurably, writeFileDurably } from './durable-file';
import { simOf, type ReceivedKeyword, type ReceivedSms } from './protocol';

export const INBOX_DIR = 'inbox';

/** What arrived from the network, before the inbox gives it an id and a time. */
export interface Arrival {
  from: string;
  text: string;
  sim?: number;
  at?: Date;
  /** Protocol 8: the keyword matched before the text was encrypted (encrypted-texts.ts). */
  keyword?: ReceivedKeyword;
}

// A received_id is a UUID made here; the pattern also keeps file names safe when reading back.
const RECEIVED_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The durable inbox of PROTOCOL.md §3 (protocol 3): one file per received SMS, next to the
 * outbox, written like outbox entries (temporary file, fsync, rename, fsync of the directory)
 * before the SMS is sent to the hub, and removed once the hub answers `received_ack`.
 */
export class Inbox {
  private readonly entries = new Map<string, ReceivedSms>();
  private tail: Promise<void> = Promise.resolve();
  /** Files that could not be read as entries; moved aside as `.corrupt`. */
  readonly corruptFiles: string[] = [];

  private constructor(private readonly directory: string) {}

  /** Opens (creating if needed) the inbox of a device folder and loads what it still holds. */
  static async open(deviceDir: string): Promise<Inbox> {
    const inbox = new Inbox(path.join(deviceDir, INBOX_DIR));
    await inbox.load();
    return inbox;
  }

  /** Entries the hub has not acknowledged, oldest first. */
  pending(): ReceivedSms[] {
    return [...this.entries.values()].sort((a, b) => a.received_at.localeCompare(b.received_at)).map((entry) => ({ ...entry }));
  }

  has(receivedId: string): boolean {
    return this.entries.has(receivedId);
  }

  /** Gives the SMS its received_id and writes it to disk; resolves once it is durable. */
  receive(arrival: Arrival): Promise<ReceivedSms> {
    const entry: ReceivedSms = {
      received_id: randomUUID(),
      from: arrival.from,
      text: arrival.text,
      ...simOf(arrival.sim),
      ...(arrival.keyword ? { keyword: arrival.keyword } : {}),
      received_at: (arrival.at ?? new Date()).toISOString(),
    };
    return this.serialized(async () => {
      await writeFileDurably(this.fileOf(entry.received_id), `${JSON.stringify(entry)}\n`);
      this.entries.set(entry.received_id, entry);
      return { ...entry };
    });
  }

  /** The hub has recorded this SMS: forget it. An unknown id (acknowledged twice) is a no-op. */
  ack(receivedId: string): Promise<void> {
    return this.serialized(async () => {
      if (!this.entries.has(receivedId)) return;
      await removeFileDurably(this.fileOf(receivedId));
      this.entries.delete(receivedId);
    });
  }

  /** Resolves once every change begun so far is on disk. */
  flush(): Promise<void> {
    return this.serialized(async () => undefined);
  }

  private fileOf(receivedId: string): string {
    return path.join(this.directory, `${receivedId}.json`);
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private async load(): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true, mode: 0o700 });
    for (const name of await fs.readdir(this.directory)) {
      const file = path.join(this.directory, name);
      // A temporary file is a write cut short: its entry was never sent to the hub.
      if (name.endsWith('.tmp')) {
        await fs.rm(file, { force: true });
        continue;
      }
      if (!name.endsWith('.json')) continue;
      const entry = await readEntry(file);
      if (entry && `${entry.received_id}.json` === name) {
        this.entries.set(entry.received_id, entry);
      } else {
        this.corruptFiles.push(name);
        await fs.rename(file, `${file}.corrupt`);
      }
    }
  }
}

async function readEntry(file: string): Promise<ReceivedSms | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (
    typeof record.received_id !== 'string' ||
    !RECEIVED_ID.test(record.received_id) ||
    typeof record.from !== 'string' ||
    typeof record.text !== 'string' ||
    typeof record.received_at !== 'string'
  ) {
    return undefined;
  }
  return {
    received_id: record.received_id,
    from: record.from,
    text: record.text,
    ...simOf(record.sim),
    ...keywordOf(record.keyword),
    received_at: record.received_at,
  };
}

function keywordOf(value: unknown): { keyword?: ReceivedKeyword } {
  const k = value as Partial<ReceivedKeyword> | null | undefined;
  return k && (k.action === 'add' || k.action === 'remove') && typeof k.keyword === 'string'
    ? { keyword: { action: k.action, keyword: k.keyword } }
    : {};
}
