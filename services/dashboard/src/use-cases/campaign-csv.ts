// Over 300 lines: a campaign file from bytes to preview rows: the bounded streaming CSV reader and
// the mapping and templates that turn its rows into messages share its limits and row shape.
import { measureSms, normalizePhoneNumber, type SmsEncoding } from '@smsgw/platform';

/**
 * What a campaign's file may hold. Every bound keeps the reading linear in the file: a column
 * name, a cell and a row each have a size, and so has the whole.
 */
export const CSV_LIMITS = { maxBytes: 2 * 1024 * 1024, maxRows: 10_000, maxColumns: 100, maxCellCharacters: 2000, maxNameCharacters: 100 };
/** The message service's limit on a text, in characters (code points). */
export const MAX_TEXT_CHARACTERS = 1600;
/** Rows previewed between two turns of the event loop: other pages are answered meanwhile. */
const ROWS_PER_TURN = 500;

export interface CsvRow {
  /** Its line in the file (the header is line 1; a quoted field over several lines counts them). */
  line: number;
  cells: string[];
}

export interface CsvFile {
  headers: string[];
  rows: CsvRow[];
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A CSV file read piece by piece, as it arrives: a header row, comma- or semicolon-separated
 * (whichever the header line has more of, outside quotes), fields optionally quoted with `"` (a
 * doubled `""` inside is one quote; a quoted field may hold the separator and line breaks), CRLF
 * or LF, with or without a UTF-8 BOM. Blank lines are skipped. Each character is looked at once,
 * and `feed` says as soon as the file breaks a rule (then the rest need not be read).
 */
export class CsvReader {
  private separator?: ',' | ';';
  /** The header line while its separator is not known yet. */
  private head = '';
  private headQuoted = false;
  private commas = 0;
  private semicolons = 0;
  private started = false;
  private readonly records: CsvRow[] = [];
  private cells: string[] = [];
  private cell = '';
  private quoted = false;
  /** A `"` inside a quoted field, before the next character says whether it is doubled. */
  private quoteInQuoted = false;
  /** A `\r` ended the record: a `\n` right after it belongs to it. */
  private afterCr = false;
  private line = 1;
  private recordLine = 1;
  private failed?: string;

  /** The first broken rule, if any. */
  get error(): string | undefined {
    return this.failed;
  }

  /** Reads more of the file; returns the error once the file breaks a rule (nothing more is read then). */
  feed(text: string): string | undefined {
    if (this.failed) return this.failed;
    let chunk = text;
    if (!this.started && chunk.length > 0) {
      this.started = true;
      if (chunk.startsWith('\uFEFF')) chunk = chunk.slice(1);
    }
    if (this.separator === undefined) {
      chunk = this.findSeparator(chunk);
      if (this.separator === undefined || this.failed) return this.failed;
    }
    this.read(chunk);
    return this.failed;
  }

  /** The file once all of it is read, or why it cannot be a campaign's. */
  end(): CsvFile | { error: string } {
    if (this.failed) return { error: this.failed };
    if (this.separator === undefined) {
      this.separator = this.semicolons > this.commas ? ';' : ',';
      const head = this.head;
      this.head = '';
      this.read(head);
      if (this.failed) return { error: this.failed };
    }
    if (this.afterCr) this.afterCr = false;
    if (this.quoteInQuoted) this.quoted = false;
    if (this.quoted) return { error: `Line ${this.recordLine}: a quoted field is never closed (a " is missing).` };
    if (this.cell !== '' || this.cells.length > 0) this.endRecord();
    if (this.failed) return { error: this.failed };
    const [header, ...rows] = this.records;
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

  /** Keeps the header line until its end is seen, counting separators outside quotes; the rest of the chunk once it is. */
  private findSeparator(chunk: string): string {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === '"') this.headQuoted = !this.headQuoted;
      else if (!this.headQuoted && (c === '\n' || c === '\r')) {
        this.separator = this.semicolons > this.commas ? ';' : ',';
        const head = this.head + chunk.slice(0, i);
        this.head = '';
        return head + chunk.slice(i);
      } else if (!this.headQuoted && c === ',') this.commas++;
      else if (!this.headQuoted && c === ';') this.semicolons++;
      if (Math.max(this.commas, this.semicolons) >= CSV_LIMITS.maxColumns) {
        this.failed = `The header row has more than ${CSV_LIMITS.maxColumns} columns: keep the columns the messages need.`;
        return '';
      }
    }
    this.head += chunk;
    // Column names are short: a header line longer than all of them quoted is not one.
    if (this.head.length > CSV_LIMITS.maxColumns * (2 * CSV_LIMITS.maxNameCharacters + 3)) {
      this.failed = `A column name is longer than ${CSV_LIMITS.maxNameCharacters} characters.`;
    }
    return '';
  }

  private read(text: string): void {
    const sep = this.separator!;
    let i = 0;
    while (i < text.length && !this.failed) {
      const c = text[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (c === '\n') {
          i++;
          continue;
        }
      }
      if (this.quoteInQuoted) {
        this.quoteInQuoted = false;
        if (c === '"') {
          this.append('"');
          i++;
          continue;
        }
        this.quoted = false;
      }
      if (this.quoted) {
        if (c === '"') {
          this.quoteInQuoted = true;
          i++;
          continue;
        }
        // A run of ordinary characters at once: up to the next quote or line break.
        let j = i;
        while (j < text.length && text[j] !== '"' && text[j] !== '\n') j++;
        if (j === i) {
          this.line++;
          this.append('\n');
          i++;
        } else {
          this.append(text.slice(i, j));
          i = j;
        }
        continue;
      }
      if (c === '"' && this.cell.trim() === '') {
        this.quoted = true;
        this.cell = '';
        i++;
      } else if (c === sep) {
        this.endCell();
        i++;
      } else if (c === '\n' || c === '\r') {
        this.endRecord();
        this.afterCr = c === '\r';
        this.line++;
        this.recordLine = this.line;
        i++;
      } else {
        let j = i + 1;
        while (j < text.length && text[j] !== sep && text[j] !== '"' && text[j] !== '\n' && text[j] !== '\r') j++;
        this.append(text.slice(i, j));
        i = j;
      }
    }
  }

  private append(text: string): void {
    this.cell += text;
    const max = this.records.length === 0 ? 2 * CSV_LIMITS.maxNameCharacters : CSV_LIMITS.maxCellCharacters;
    if (this.cell.length > max) {
      this.failed =
        this.records.length === 0
          ? `A column name is longer than ${CSV_LIMITS.maxNameCharacters} characters.`
          : `Line ${this.recordLine}, column ${this.cells.length + 1}: a cell holds more than ${CSV_LIMITS.maxCellCharacters} characters.`;
    }
  }

  private endCell(): void {
    this.cells.push(this.cell);
    this.cell = '';
    if (this.cells.length >= CSV_LIMITS.maxColumns) {
      this.failed =
        this.records.length === 0
          ? `The header row has more than ${CSV_LIMITS.maxColumns} columns: keep the columns the messages need.`
          : `Line ${this.recordLine} has more than ${CSV_LIMITS.maxColumns} columns.`;
    }
  }

  private endRecord(): void {
    this.cells.push(this.cell);
    if (this.records.length === 0 && this.cells.some((h) => [...h.trim()].length > CSV_LIMITS.maxNameCharacters)) {
      this.failed = `A column name is longer than ${CSV_LIMITS.maxNameCharacters} characters.`;
    }
    if (this.cells.length > 1 || this.cells[0]!.trim() !== '') this.records.push({ line: this.recordLine, cells: this.cells });
    this.cells = [];
    this.cell = '';
    if (this.records.length > CSV_LIMITS.maxRows + 1) {
      this.failed = `The file has more than ${CSV_LIMITS.maxRows} rows: split it into smaller files.`;
    }
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

/** Which column holds the number, and the text (its `{{column}}` placeholders filled from the row). */
export interface Mapping {
  phoneColumn: string;
  template: string;
}

export interface GoodRow {
  line: number;
  to: string;
  text: string;
  parts: number;
  encoding: SmsEncoding;
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

/** A mapping's own error (a column the file does not have, no text), or undefined. */
export function checkMapping(file: Pick<CsvFile, 'headers'>, mapping: Mapping): string | undefined {
  if (!file.headers.includes(mapping.phoneColumn)) return 'Choose the column that holds the phone numbers.';
  if (mapping.template.trim() === '') return 'Write the text of the messages.';
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
 * line (each number gets the campaign once). The template is read once, and a
 * row's text is built no further than the limit; the event loop turns every
 * few hundred rows.
 */
export async function previewRows(file: CsvFile, mapping: Mapping): Promise<Preview> {
  const phoneAt = file.headers.indexOf(mapping.phoneColumn);
  const { parts, columns } = compileTemplate(mapping.template, file.headers);
  // A text longer than this in UTF-16 units has more than MAX_TEXT_CHARACTERS code points.
  const buildLimit = 2 * MAX_TEXT_CHARACTERS;
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
    if (text.length > buildLimit) {
      refuse(`The text has more than ${MAX_TEXT_CHARACTERS} characters: at most ${MAX_TEXT_CHARACTERS}.`);
      continue;
    }
    const size = measureSms(text);
    if (size.characters > MAX_TEXT_CHARACTERS) {
      refuse(`The text has ${size.characters} characters: at most ${MAX_TEXT_CHARACTERS}.`);
      continue;
    }
    const earlier = seen.get(to);
    if (earlier !== undefined) {
      refuse(`${to} is already on line ${earlier}: each number gets the campaign once.`);
      continue;
    }
    seen.set(to, row.line);
    good.push({ line: row.line, to, text, parts: size.parts, encoding: size.encoding });
  }
  return { good, bad };
}
