import { readCsvRecords } from '@smsgw/client';

/**
 * RFC 4180 CSV: fields separated by commas (or the delimiter given), quoted with double quotes
 * (a quote inside doubled), records ended by CRLF or LF; a UTF-8 byte order mark is dropped.
 */
export function parseCsv(text: string, delimiter: ',' | ';' = ','): string[][] {
  return parseCsvLines(text, delimiter).map((r) => r.fields);
}

/** The records of a CSV text with the line each starts on (1-based); blank lines are skipped. The reader is the platform's one (`@smsgw/client`). */
export function parseCsvLines(text: string, delimiter: ',' | ';' = ','): { line: number; fields: string[] }[] {
  const read = readCsvRecords(text, { separator: delimiter });
  if ('error' in read) throw new Error(read.error);
  return read.records.map((r) => ({ line: r.line, fields: r.cells }));
}

export interface Recipient {
  /** The line of the file (1 is the header). */
  line: number;
  to: string;
  /** The row's own text, when the file has a message column and the row fills it. */
  message?: string;
}

const PHONE_COLUMNS = ['phone', 'to', 'number', 'phone_number', 'mobile', 'recipient'];
const MESSAGE_COLUMNS = ['message', 'text', 'body'];

/**
 * The recipients of a CSV file with a header row: a phone column (phone, to, number,
 * phone_number, mobile or recipient) and an optional message column (message, text or body).
 * Rows without their own text take `fallback` (--message); a row with neither is an error, as is
 * a row without a number: the whole file is refused before anything is sent.
 */
export function recipientsOf(text: string, fallback: string | undefined): { recipients: Recipient[]; personalised: boolean } {
  const rows = parseCsvLines(text);
  const header = rows.shift()?.fields.map((h) => h.trim().toLowerCase());
  if (!header) throw new Error('the file is empty');
  const phone = header.findIndex((h) => PHONE_COLUMNS.includes(h));
  if (phone < 0) throw new Error(`no phone column: the header row needs one of ${PHONE_COLUMNS.join(', ')}`);
  const message = header.findIndex((h) => MESSAGE_COLUMNS.includes(h));
  if (message < 0 && fallback === undefined) throw new Error('no message column and no --message: nothing to send');
  const problems: string[] = [];
  const recipients = rows.map(({ line, fields }) => {
    const to = (fields[phone] ?? '').trim();
    const own = message >= 0 ? (fields[message] ?? '') : '';
    if (!to) problems.push(`line ${line}: no number`);
    if (!own.trim() && fallback === undefined) problems.push(`line ${line}: no message (give --message for rows without one)`);
    return { line, to, ...(own.trim() ? { message: own } : {}) };
  });
  if (problems.length)
    throw new Error(problems.slice(0, 10).join('\n') + (problems.length > 10 ? `\n… and ${problems.length - 10} more` : ''));
  if (recipients.length === 0) throw new Error('the file has a header and no recipient');
  return { recipients, personalised: message >= 0 };
}

/** Rows in batches of `size`, in file order. */
export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
