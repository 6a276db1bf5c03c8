import { measureSms, type SmsEncoding } from '@smsgw/platform';
import { normalizePhoneNumber } from './phone-number';

/** What a campaign's file may hold. */
export const CSV_LIMITS = { maxBytes: 2 * 1024 * 1024, maxRows: 10_000 };
/** The message service's limit on a text, in characters (code points). */
export const MAX_TEXT_CHARACTERS = 1600;

export interface CsvRow {
  /** Its line in the file (the header is line 1; a quoted field over several lines counts them). */
  line: number;
  cells: string[];
}

export interface CsvFile {
  headers: string[];
  rows: CsvRow[];
}

/**
 * A CSV file with a header row, comma- or semicolon-separated (whichever the
 * header line has more of, outside quotes), fields optionally quoted with
 * `"` (a doubled `""` inside is one quote; a quoted field may hold the
 * separator and line breaks), CRLF or LF, with or without a UTF-8 BOM.
 * Blank lines are skipped. An error in words when it is not such a file or
 * exceeds the limits.
 */
export function parseCsv(text: string): CsvFile | { error: string } {
  if (Buffer.byteLength(text, 'utf8') > CSV_LIMITS.maxBytes) return { error: 'The file is over 2 MB: split it into smaller files.' };
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const separator = guessSeparator(body);
  const records: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0]!.trim() !== '') records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
  };
  while (i < body.length) {
    const c = body[i]!;
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        cell += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
      i++;
      continue;
    }
    if (c === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (c === separator) {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      endRecord();
      if (c === '\r' && body[i + 1] === '\n') i++;
      line++;
      recordLine = line;
    } else cell += c;
    i++;
    if (records.length > CSV_LIMITS.maxRows + 1) break;
  }
  if (quoted) return { error: `Line ${recordLine}: a quoted field is never closed (a " is missing).` };
  if (cell !== '' || cells.length > 0) endRecord();
  const [header, ...rows] = records;
  if (!header) return { error: 'The file is empty: it needs a header row and at least one row.' };
  const headers = header.cells.map((h) => h.trim());
  if (headers.some((h) => h === '')) return { error: 'Every column of the header row needs a name.' };
  const twice = headers.find((h, n) => headers.indexOf(h) !== n);
  if (twice) return { error: `The header row names the column “${twice}” twice.` };
  if (rows.length === 0) return { error: 'The file has a header row but no rows.' };
  if (rows.length > CSV_LIMITS.maxRows) return { error: `The file has more than ${CSV_LIMITS.maxRows} rows: split it into smaller files.` };
  return { headers, rows };
}

function guessSeparator(body: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const c of body) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && c === ',') commas++;
    else if (!quoted && c === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
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
export function checkMapping(file: CsvFile, mapping: Mapping): string | undefined {
  if (!file.headers.includes(mapping.phoneColumn)) return 'Choose the column that holds the phone numbers.';
  if (mapping.template.trim() === '') return 'Write the text of the messages.';
  const unknown = placeholdersOf(mapping.template).filter((p) => !file.headers.includes(p));
  if (unknown.length > 0)
    return `The file has no column ${unknown.map((u) => `“${u}”`).join(', ')}: the placeholders must name a column of the header row.`;
  return undefined;
}

/**
 * Every row as a message or a refusal with its reason: a missing or invalid
 * number, a placeholder whose column is empty in that row, an empty text, a
 * text over the message service's limit, or a number already on an earlier
 * line (each number gets the campaign once).
 */
export function previewRows(file: CsvFile, mapping: Mapping): Preview {
  const phoneAt = file.headers.indexOf(mapping.phoneColumn);
  const seen = new Map<string, number>();
  const good: GoodRow[] = [];
  const bad: BadRow[] = [];
  for (const row of file.rows) {
    const value = (name: string) => (row.cells[file.headers.indexOf(name)] ?? '').trim();
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
    const empty = placeholdersOf(mapping.template).filter((p) => value(p) === '');
    if (empty.length > 0) {
      refuse(`The column ${empty.map((e) => `“${e}”`).join(', ')} is empty, and the text uses it.`);
      continue;
    }
    const text = mapping.template.replace(PLACEHOLDER, (_, name: string) => value(name.trim())).trim();
    if (text === '') {
      refuse('The text is empty.');
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
