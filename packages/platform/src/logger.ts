import { trace } from '@opentelemetry/api';
import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logs on stdout, each line carrying the active trace and span ids.
 * Never log phone numbers, message text, codes, keys or secrets: the redact
 * list is a safety net, not a licence.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: {
      paths: [
        ...['apiKey', 'api_key', 'password', 'device_password', 'token', 'device_token', 'secret', 'text', 'otp_code'].flatMap((k) => [
          k,
          `*.${k}`,
        ]),
        'req.headers["x-api-key"]',
      ],
      censor: '[redacted]',
    },
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
      return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  });
}

/** What a component logs through: pino's level methods, with an object of fields or a message alone. */
export interface LogSink {
  debug(fields: object, msg?: string): void;
  debug(msg: string): void;
  info(fields: object, msg?: string): void;
  info(msg: string): void;
  warn(fields: object, msg?: string): void;
  warn(msg: string): void;
  error(fields: object, msg?: string): void;
  error(msg: string): void;
}

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * A child logger that costs nothing until it writes: its bindings are merged into each line it
 * writes, which reads as pino's child would. For objects held by the thousands, such as a phone's
 * session: pino's child keeps its bindings serialised, its own formatters and more, about half a
 * kilobyte each, for lines that are mostly never written.
 */
export class BoundLogger implements LogSink {
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Readonly<Record<string, unknown>>,
  ) {}

  debug(fieldsOrMsg: object | string, msg?: string): void {
    this.write('debug', fieldsOrMsg, msg);
  }

  info(fieldsOrMsg: object | string, msg?: string): void {
    this.write('info', fieldsOrMsg, msg);
  }

  warn(fieldsOrMsg: object | string, msg?: string): void {
    this.write('warn', fieldsOrMsg, msg);
  }

  error(fieldsOrMsg: object | string, msg?: string): void {
    this.write('error', fieldsOrMsg, msg);
  }

  private write(level: Level, fieldsOrMsg: object | string, msg?: string): void {
    if (!this.parent.isLevelEnabled(level)) return;
    if (typeof fieldsOrMsg === 'string') this.parent[level](this.bindings, fieldsOrMsg);
    // An error alone is logged as pino logs one: under `err` (its message and stack are not enumerable).
    else if (fieldsOrMsg instanceof Error) this.parent[level]({ ...this.bindings, err: fieldsOrMsg }, msg);
    else this.parent[level]({ ...this.bindings, ...fieldsOrMsg }, msg);
  }
}
