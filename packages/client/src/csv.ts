// The one CSV reader of the platform: the CLI's `send-bulk --csv` and the dashboard's campaign
// files read their records with it (the dashboard adds its header rules and its limits). It reads
// a file piece by piece, each character looked at once, and stops at the first bound it passes.

/** How much a file may hold; a reader without limits takes any file. */
export interface CsvLimits {
  /** Records after the header. */
  maxRows: number;
  maxColumns: number;
  maxCellCharacters: number;
  maxNameCharacters: number;
}

export interface CsvReaderOptions {
  /** The separator; undefined: `,` or `;`, whichever the header line has more of outside quotes. */
  separator?: ',' | ';';
  limits?: CsvLimits;
}

export interface CsvRecord {
  /** Its line in the file (the first is line 1; a quoted field over several lines counts them). */
  line: number;
  cells: string[];
}

const UNBOUNDED: CsvLimits = { maxRows: Infinity, maxColumns: Infinity, maxCellCharacters: Infinity, maxNameCharacters: Infinity };

/**
 * RFC 4180 records read as they arrive: fields optionally quoted with `"` (a doubled `""` inside is
 * one quote; a quoted field may hold the separator and line breaks), CRLF, LF or CR, with or
 * without a UTF-8 BOM. Blank lines are skipped. `feed` says as soon as the file passes a limit
 * (then the rest need not be read); `end` gives the records, the first being the header row.
 */
export class CsvRecordReader {
  private separator?: ',' | ';';
  private readonly limits: CsvLimits;
  /** The header line while its separator is not known yet. */
  private head = '';
  private headQuoted = false;
  private commas = 0;
  private semicolons = 0;
  private started = false;
  private readonly records: CsvRecord[] = [];
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

  constructor(options: CsvReaderOptions = {}) {
    this.separator = options.separator;
    this.limits = options.limits ?? UNBOUNDED;
  }

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

  /** The records once all of the file is read (the header row first), or the rule it breaks. */
  end(): { records: CsvRecord[] } | { error: string } {
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
    return { records: this.records };
  }

  /** Keeps the header line until its end is seen, counting separators outside quotes; the rest of the chunk once it is. */
  private findSeparator(chunk: string): string {
    const { maxColumns, maxNameCharacters } = this.limits;
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
      if (Math.max(this.commas, this.semicolons) >= maxColumns) {
        this.failed = `The header row has more than ${maxColumns} columns: keep the columns the messages need.`;
        return '';
      }
    }
    this.head += chunk;
    // Column names are short: a header line longer than all of them quoted is not one.
    if (this.head.length > maxColumns * (2 * maxNameCharacters + 3)) {
      this.failed = `A column name is longer than ${maxNameCharacters} characters.`;
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
    const { maxCellCharacters, maxNameCharacters } = this.limits;
    this.cell += text;
    const max = this.records.length === 0 ? 2 * maxNameCharacters : maxCellCharacters;
    if (this.cell.length > max) {
      this.failed =
        this.records.length === 0
          ? `A column name is longer than ${maxNameCharacters} characters.`
          : `Line ${this.recordLine}, column ${this.cells.length + 1}: a cell holds more than ${maxCellCharacters} characters.`;
    }
  }

  private endCell(): void {
    const { maxColumns } = this.limits;
    this.cells.push(this.cell);
    this.cell = '';
    if (this.cells.length >= maxColumns) {
      this.failed =
        this.records.length === 0
          ? `The header row has more than ${maxColumns} columns: keep the columns the messages need.`
          : `Line ${this.recordLine} has more than ${maxColumns} columns.`;
    }
  }

  private endRecord(): void {
    const { maxNameCharacters, maxRows } = this.limits;
    this.cells.push(this.cell);
    if (this.records.length === 0 && this.cells.some((h) => [...h.trim()].length > maxNameCharacters)) {
      this.failed = `A column name is longer than ${maxNameCharacters} characters.`;
    }
    if (this.cells.length > 1 || this.cells[0]!.trim() !== '') this.records.push({ line: this.recordLine, cells: this.cells });
    this.cells = [];
    this.cell = '';
    if (this.records.length > maxRows + 1) {
      this.failed = `The file has more than ${maxRows} rows: split it into smaller files.`;
    }
  }
}

/** A whole CSV text's records at once (the header row first), or the rule it breaks. */
export function readCsvRecords(text: string, options: CsvReaderOptions = {}): { records: CsvRecord[] } | { error: string } {
  const reader = new CsvRecordReader(options);
  reader.feed(text);
  return reader.end();
}
