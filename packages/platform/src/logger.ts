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
