import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Attributes } from '@opentelemetry/api';

/**
 * What the HTTP instrumentation records of a URL may hold what never leaves a
 * service: a dashboard search (`/messages?q=+336...`), a phone number in a path
 * (the dashboard's `/inbox/+336...`, the API's `/v1/opt-outs/%2B336...`), a
 * token in a webhook receiver's URL, credentials in its authority. These
 * attributes keep the scheme, host and path; the query, any user info and each
 * path segment that is a number (6 digits or more, with the `+`, spaces, dots,
 * dashes and brackets numbers are written with) become `REDACTED`.
 */
const URL_ATTRIBUTES = ['url.full', 'http.url', 'http.target', 'url.path'];
const QUERY_ATTRIBUTES = ['url.query'];
export const REDACTED = 'REDACTED';

const NUMBER_CHARACTERS = /^[+0-9 ().-]+$/;

function isNumberSegment(segment: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = segment;
  }
  return NUMBER_CHARACTERS.test(decoded) && (decoded.match(/[0-9]/g)?.length ?? 0) >= 6;
}

function redactUrl(value: string): string {
  const query = value.indexOf('?');
  const path = query === -1 ? value : value.slice(0, query);
  // The path after the authority (or the whole of a target), segment by segment.
  const start = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(path)?.[0].length ?? 0;
  const segments = path.slice(start).split('/');
  const redactedPath = segments.some(isNumberSegment)
    ? path.slice(0, start) + segments.map((s) => (isNumberSegment(s) ? REDACTED : s)).join('/')
    : path;
  const withoutQuery = query === -1 ? redactedPath : `${redactedPath}?${REDACTED}`;
  return withoutQuery.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, `$1${REDACTED}@`);
}

/** The attributes with every URL's query, user info and numbers in its path redacted; the same object when nothing needed it. */
export function redactAttributes(attributes: Attributes): Attributes {
  let copy: Attributes | undefined;
  const set = (key: string, value: string) => {
    copy ??= { ...attributes };
    copy[key] = value;
  };
  for (const key of URL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === 'string') {
      const redacted = redactUrl(value);
      if (redacted !== value) set(key, redacted);
    }
  }
  for (const key of QUERY_ATTRIBUTES) {
    if (typeof attributes[key] === 'string' && attributes[key] !== '') set(key, REDACTED);
  }
  return copy ?? attributes;
}

/**
 * Wraps the OTLP exporter so that no exported span carries a URL's query or
 * user info, whichever instrumentation recorded it. A span keeps its methods
 * (`spanContext()`): the copy only shadows its attributes.
 */
export class RedactingSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: Parameters<SpanExporter['export']>[1]): void {
    const redacted = spans.map((span) => {
      const attributes = redactAttributes(span.attributes);
      return attributes === span.attributes ? span : (Object.create(span, { attributes: { value: attributes } }) as ReadableSpan);
    });
    this.inner.export(redacted, resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
