import { Writable } from 'node:stream';

/** The lines a ring keeps, and the longest line kept (protocol 6: a `log` frame stays under 64 KiB). */
export const LOG_RING_LINES = 200;
export const LOG_LINE_MAX = 300;

/** Fields whose value is a phone number or a message's text: never sent, whatever they hold. */
const SECRET_KEYS = ['text', 'body', 'message', 'to', 'from', 'number', 'sim_number', 'code'];
const SECRET_FIELD = new RegExp(`\\b(${SECRET_KEYS.join('|')})=("(?:[^"\\\\]|\\\\.)*"|\\S+)`, 'g');
// A run of 5 or more digits (spaces, dots, dashes and brackets between them), optionally after
// `+`, that is not part of a word (an id such as msg_01J9... keeps its digits) nor a date
// (2026-11-29): a phone number.
const NUMBER = /(?<![A-Za-z0-9_-])(?!\d{4}-\d\d-\d\d)\+?\d[\d ().-]{3,}\d(?![A-Za-z0-9_])/g;

/**
 * A log line as it may leave the phone: the value of a text or number field (`to=...`,
 * `text="..."`) is masked, and so is any phone number left in the rest; ids, counts and times stay.
 */
export function redactLogLine(line: string): string {
  return line.replace(SECRET_FIELD, '$1=[redacted]').replace(NUMBER, '[number]').slice(0, LOG_LINE_MAX);
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEFT_OUT = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name']);

/** One pino JSON line as a readable line: `<time> <LEVEL> <msg> key=value ...` (not yet redacted). */
export function formatPinoLine(json: string): string | undefined {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString() : '';
  const level = LEVELS[record.level as number] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([key]) => !LEFT_OUT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`);
  const msg = typeof record.msg === 'string' ? record.msg : JSON.stringify(record.msg ?? '');
  return [time, level, msg, ...fields].join(' ');
}

/** The agent's recent log lines, redacted as they come in, the oldest dropped past the bound. */
export class LogRing {
  private readonly lines: string[] = [];

  constructor(private readonly capacity = LOG_RING_LINES) {}

  add(line: string): void {
    this.lines.push(redactLogLine(line));
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  snapshot(): string[] {
    return [...this.lines];
  }

  /** A stream for pino: each JSON line it writes goes into the ring. */
  stream(): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const json of chunk.toString('utf8').split('\n')) {
          const line = json.trim() ? formatPinoLine(json) : undefined;
          if (line !== undefined) this.add(line);
        }
        done();
      },
    });
  }
}
