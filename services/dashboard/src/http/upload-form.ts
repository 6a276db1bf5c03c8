import type { IncomingMessage } from 'node:http';
import { TextDecoder } from 'node:util';
import { CSV_LIMITS, CsvReader, type CsvFile } from '../use-cases/campaign-csv';

/** A campaign's file as the upload form brought it: read and checked, or why not. */
export type UploadedCsv = { text: string; file: CsvFile } | { error: string; tooLarge?: boolean };

/** The upload form's fields besides the file: the CSRF token, the name, the file's name. */
const OTHER_FIELDS_MAX_BYTES = 64 * 1024;
const CSV_FIELD = 'csv';

/**
 * Reads the campaign upload form (`application/x-www-form-urlencoded`) as it arrives, never
 * holding more than the file's text: the percent-encoding is undone piece by piece, and the
 * `csv` field goes straight into a CsvReader, so that the file is checked while it comes and a
 * file that breaks a rule (too large, too wide) is refused before the rest of the body is read.
 * Other fields are kept (64 KiB at most in all). The rest of a refused body is discarded.
 */
export async function readUploadForm(req: IncomingMessage): Promise<{ fields: URLSearchParams; csv: UploadedCsv }> {
  const form = new UrlEncodedStream();
  await new Promise<void>((resolve, reject) => {
    const finish = () => {
      req.off('data', onData);
      req.off('end', finish);
      req.off('error', onError);
      // A body left unread (a refused file) flows away unread.
      req.resume();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      form.push(chunk);
      if (form.stopped) finish();
    };
    const onError = (err: Error) => {
      req.off('data', onData);
      req.off('end', finish);
      reject(err);
    };
    req.on('data', onData);
    req.on('end', finish);
    req.on('error', onError);
  });
  return form.end();
}

/** `application/x-www-form-urlencoded`, decoded a piece at a time (URLSearchParams' rules: `+` is a space, a bad `%` stays as it is). */
class UrlEncodedStream {
  private readonly fields = new URLSearchParams();
  private inValue = false;
  private name: number[] = [];
  private value: number[] = [];
  private otherBytes = 0;
  /** `%` and the hex digits seen after it so far. */
  private percent = '';
  private csv?: { reader: CsvReader; decoder: TextDecoder; parts: string[]; bytes: number };
  private csvDone?: UploadedCsv;
  private failed?: UploadedCsv & { error: string };

  get stopped(): boolean {
    return this.failed !== undefined;
  }

  push(chunk: Buffer): void {
    const out: number[] = [];
    for (let i = 0; i < chunk.length && !this.failed; i++) {
      const b = chunk[i]!;
      if (this.percent !== '') {
        this.percent += String.fromCharCode(b);
        if (!/^%[0-9A-Fa-f]{0,2}$/.test(this.percent)) {
          // Not an escape: its characters stay as they are (this byte is read again).
          for (const c of this.percent.slice(0, -1)) this.byte(c.charCodeAt(0), out);
          this.percent = '';
          i--;
        } else if (this.percent.length === 3) {
          this.byte(parseInt(this.percent.slice(1), 16), out);
          this.percent = '';
        }
        continue;
      }
      if (b === 0x26 /* & */) {
        this.flush(out);
        this.endField();
      } else if (b === 0x3d /* = */ && !this.inValue) {
        this.inValue = true;
      } else if (b === 0x25 /* % */) {
        this.percent = '%';
      } else {
        this.byte(b === 0x2b /* + */ ? 0x20 : b, out);
      }
    }
    this.flush(out);
  }

  end(): { fields: URLSearchParams; csv: UploadedCsv } {
    if (!this.failed) {
      const out: number[] = [];
      for (const c of this.percent) this.byte(c.charCodeAt(0), out);
      this.percent = '';
      this.flush(out);
      this.endField();
    }
    return { fields: this.fields, csv: this.failed ?? this.csvDone ?? { error: 'Choose a CSV file.' } };
  }

  /** One decoded byte of the current field. */
  private byte(b: number, out: number[]): void {
    if (!this.inValue) {
      if (this.name.length < 100) this.name.push(b);
      return;
    }
    if (this.isCsv()) {
      out.push(b);
      return;
    }
    if (++this.otherBytes > OTHER_FIELDS_MAX_BYTES) {
      this.failed = { error: 'The form is too large.', tooLarge: true };
      return;
    }
    this.value.push(b);
  }

  private isCsv(): boolean {
    return this.inValue && this.name.length === CSV_FIELD.length && Buffer.from(this.name).toString('latin1') === CSV_FIELD;
  }

  /** Hands the file's bytes decoded from this piece to its reader. */
  private flush(out: number[]): void {
    if (out.length === 0 || this.failed) return;
    this.csv ??= { reader: new CsvReader(), decoder: new TextDecoder('utf-8'), parts: [], bytes: 0 };
    this.csv.bytes += out.length;
    if (this.csv.bytes > CSV_LIMITS.maxBytes) {
      this.failed = { error: 'The file is over 2 MB: split it into smaller files.', tooLarge: true };
      return;
    }
    const text = this.csv.decoder.decode(Uint8Array.from(out), { stream: true });
    out.length = 0;
    this.csv.parts.push(text);
    const error = this.csv.reader.feed(text);
    if (error) this.failed = { error };
  }

  private endField(): void {
    if (this.isCsv() && this.csv) {
      const tail = this.csv.decoder.decode();
      this.csv.parts.push(tail);
      this.csv.reader.feed(tail);
      const file = this.csv.reader.end();
      const text = this.csv.parts.join('');
      // A file that is only blank is no file; one that breaks a rule at its end (no rows, a name twice) is refused, and the form read on.
      this.csvDone = text.trim() === '' ? { error: 'Choose a CSV file.' } : 'error' in file ? file : { text, file };
      this.csv = undefined;
    } else if (this.isCsv()) {
      this.csvDone = { error: 'Choose a CSV file.' };
    } else if (this.name.length > 0 || this.value.length > 0) {
      this.fields.append(Buffer.from(this.name).toString('utf8'), Buffer.from(this.value).toString('utf8'));
    }
    this.name = [];
    this.value = [];
    this.inValue = false;
  }
}
