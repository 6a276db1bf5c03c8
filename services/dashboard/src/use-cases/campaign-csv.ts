import { CsvRecordReader, type CsvRecord } from '@smsgw/client';
import { isEnvelope, isWellFormedEnvelope } from '@smsgw/e2e-envelope';
import { MAX_SMS_CHARACTERS, measureSms, normalizePhoneNumber, type SmsEncoding } from '@smsgw/platform';

/**
 * What a campaign's file may hold. Every bound keeps the reading linear in the file: a column
 * name, a cell and a row each have a size, and so has the whole. A cell holds an encrypted text's
 * envelope too, as long as the API takes one (the gateway's MAX_ENVELOPE_CHARACTERS, 8,800).
 */
export const CSV_LIMITS = { maxBytes: 2 * 1024 * 1024, maxRows: 10_000, maxColumns: 100, maxCellCharacters: 8800, maxNameCharacters: 100 };
/** Rows previewed between two turns of the event loop: other pages are answered meanwhile. */
const ROWS_PER_TURN = 500;

/** A row of the file: its line (the header is line 1; a quoted field over several lines counts them) and cells. */
export type CsvRow = CsvRecord;

export interface CsvFile {
  headers: string[];
  rows: CsvRow[];
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A campaign's file read piece by piece, as it arrives, with the platform's one CSV reader
 * (`@smsgw/client`'s `CsvRecordReader`): a header row, comma- or semicolon-separated (whichever
 * the header line has more of, outside quotes), within CSV_LIMITS. `feed` says as soon as the file
 * breaks a rule (then the rest need not be read); `end` adds the header's rules.
 */
export class CsvReader {
  private readonly records = new CsvRecordReader({ limits: CSV_LIMITS });

  /** The first broken rule, if any. */
  get error(): string | undefined {
    return this.records.error;
  }

  /** Reads more of the file; returns the error once the file breaks a rule (nothing more is read then). */
  feed(text: string): string | undefined {
    return this.records.feed(text);
  }

  /** The file once all of it is read, or why it cannot be a campaign's. */
  end(): CsvFile | { error: string } {
    const read = this.records.end();
    if ('error' in read) return read;
    const [header, ...rows] = read.records;
    if (!header) return { error: 'The file is empty: it needs a header row and at least one row.' };
    const headers = header.cells.map((h) => h.trim());
    if (headers.some((h) => h === '')) return { error: 'Every column of the header row needs a name.' };
    const seen = new Set<string>();
    for (const h of headers) {
      if (seen.has(h)) return { error: `The header row names the column “${h}” twice.` };
      seen.add(h);
    }
    if (rows.length === 0) return { error: 'The file has a header row but no rows.' };
    return { headers, rows };
  }
}

/** The whole file at once (its size checked first); an error in words when it is not a campaign's file. */
export function parseCsv(text: string): CsvFile | { error: string } {
  if (Buffer.byteLength(text, 'utf8') > CSV_LIMITS.maxBytes) return { error: 'The file is over 2 MB: split it into smaller files.' };
  const reader = new CsvReader();
  reader.feed(text);
  return reader.end();
}

/** As parseCsv, a piece at a time with a turn of the event loop between pieces: for a stored file read again. */
export async function readCsv(text: string, pieceLength = 64 * 1024): Promise<CsvFile | { error: string }> {
  if (Buffer.byteLength(text, 'utf8') > CSV_LIMITS.maxBytes) return { error: 'The file is over 2 MB: split it into smaller files.' };
  const reader = new CsvReader();
  for (let at = 0; at < text.length && !reader.error; at += pieceLength) {
    reader.feed(text.slice(at, at + pieceLength));
    if (at + pieceLength < text.length) await nextTurn();
  }
  return reader.end();
}

/**
 * Which column holds the number, and the text (its `{{column}}` placeholders filled from the row).
 * `encrypted`: the text is one column of end-to-end envelopes, sent untouched (docs/api/encryption.md).
 */
export interface Mapping {
  phoneColumn: string;
  template: string;
  encrypted?: boolean;
}

export interface GoodRow {
  line: number;
  to: string;
  text: string;
  /** For an envelope, the platform's stand-in (1, GSM-7): only the phone knows them. */
  parts: number;
  encoding: SmsEncoding;
  encrypted?: true;
}

export interface BadRow {
  line: number;
  reason: string;
}

export interface Preview {
  good: GoodRow[];
  bad: BadRow[];
}

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** The columns a template names, in order, once each. */
export const placeholdersOf = (template: string) => [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];

const ONE_PLACEHOLDER = /^\{\{\s*([^{}]+?)\s*\}\}$/;

/** A mapping's own error (a column the file does not have, no text, more than the envelopes' column when encrypted), or undefined. */
export function checkMapping(file: Pick<CsvFile, 'headers'>, mapping: Mapping): string | undefined {
  if (!file.headers.includes(mapping.phoneColumn)) return 'Choose the column that holds the phone numbers.';
  if (mapping.template.trim() === '') return 'Write the text of the messages.';
  if (mapping.encrypted && !ONE_PLACEHOLDER.test(mapping.template.trim()))
    return 'Encrypted texts are sent as they are: the text is the column of the envelopes alone, for example {{message}}.';
  const unknown = placeholdersOf(mapping.template).filter((p) => !file.headers.includes(p));
  if (unknown.length > 0)
    return `The file has no column ${unknown.map((u) => `“${u}”`).join(', ')}: the placeholders must name a column of the header row.`;
  return undefined;
}

/** A template read once: its literal parts and the column of each placeholder, in order. */
function compileTemplate(template: string, headers: string[]): { parts: (string | number)[]; columns: number[] } {
  const at = new Map(headers.map((h, n) => [h, n]));
  const parts: (string | number)[] = [];
  let last = 0;
  const trimmed = template.trim();
  for (const m of trimmed.matchAll(PLACEHOLDER)) {
    if (m.index > last) parts.push(trimmed.slice(last, m.index));
    parts.push(at.get(m[1]!)!);
    last = m.index + m[0].length;
  }
  if (last < trimmed.length) parts.push(trimmed.slice(last));
  return { parts, columns: [...new Set(parts.filter((p): p is number => typeof p === 'number'))] };
}

/**
 * Every row as a message or a refusal with its reason: a missing or invalid
 * number, a placeholder whose column is empty in that row, an empty text, a
 * text over the message service's limit, or a number already on an earlier
 * line (each number gets the campaign once). Encrypted, a text must be an
 * envelope (its shape and length checked, nothing else); in clear, it must not. The template is read once, and a
 * row's text is built no further than the limit; the event loop turns every
 * few hundred rows.
 */
export async function previewRows(file: CsvFile, mapping: Mapping): Promise<Preview> {
  const phoneAt = file.headers.indexOf(mapping.phoneColumn);
  const { parts, columns } = compileTemplate(mapping.template, file.headers);
  // A text longer than this in UTF-16 units has more than MAX_SMS_CHARACTERS code points.
  const buildLimit = 2 * MAX_SMS_CHARACTERS;
  const seen = new Map<string, number>();
  const good: GoodRow[] = [];
  const bad: BadRow[] = [];
  for (let n = 0; n < file.rows.length; n++) {
    if (n > 0 && n % ROWS_PER_TURN === 0) await nextTurn();
    const row = file.rows[n]!;
    const value = (column: number) => (row.cells[column] ?? '').trim();
    const raw = (row.cells[phoneAt] ?? '').trim();
    const refuse = (reason: string) => bad.push({ line: row.line, reason });
    if (raw === '') {
      refuse(`No number in the column “${mapping.phoneColumn}”.`);
      continue;
    }
    const to = normalizePhoneNumber(raw);
    if (!to) {
      refuse(`“${raw.slice(0, 40)}” is not a valid international number (+ and the country code).`);
      continue;
    }
    const empty = columns.filter((c) => value(c) === '');
    if (empty.length > 0) {
      refuse(`The column ${empty.map((c) => `“${file.headers[c]}”`).join(', ')} is empty, and the text uses it.`);
      continue;
    }
    let text = '';
    for (const part of parts) {
      text += typeof part === 'number' ? value(part) : part;
      if (text.length > buildLimit) break;
    }
    text = text.trim();
    if (text === '') {
      refuse('The text is empty.');
      continue;
    }
    const earlier = seen.get(to);
    if (mapping.encrypted) {
      // The platform cannot read an envelope: its shape only (a cell's bound is the API's longest
      // envelope); the phone checks the plain text.
      if (!isWellFormedEnvelope(text)) refuse('The text is not an encrypted envelope ($smsgw-e2e$v1$…).');
      else if (earlier !== undefined) refuse(`${to} is already on line ${earlier}: each number gets the campaign once.`);
      else {
        seen.set(to, row.line);
        good.push({ line: row.line, to, text, parts: 1, encoding: 'GSM-7', encrypted: true });
      }
      continue;
    }
    if (isEnvelope(text)) {
      refuse('The text is an encrypted envelope: tick “The texts are encrypted”.');
      continue;
    }
    if (text.length > buildLimit) {
      refuse(`The text has more than ${MAX_SMS_CHARACTERS} characters: at most ${MAX_SMS_CHARACTERS}.`);
      continue;
    }
    const size = measureSms(text);
    if (size.characters > MAX_SMS_CHARACTERS) {
      refuse(`The text has ${size.characters} characters: at most ${MAX_SMS_CHARACTERS}.`);
      continue;
    }
    if (earlier !== undefined) {
      refuse(`${to} is already on line ${earlier}: each number gets the campaign once.`);
      continue;
    }
    seen.set(to, row.line);
    good.push({ line: row.line, to, text, parts: size.parts, encoding: size.encoding });
  }
  return { good, bad };
}
