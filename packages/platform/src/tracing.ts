/**
 * Work gathered from several API requests into one call (group commit) keeps
 * a trace per request: the caller sends each request's `traceparent` with its
 * item, the callee records the item's part in a span of that trace, and the
 * call's own span and the items' spans link to each other.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';

export type { Span, SpanContext };

const tracer = trace.getTracer('smsgw');

/** The W3C traceparent of the active span, or '' when there is none. */
export function currentTraceparent(): string {
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? '';
}

/** The W3C traceparent of `span` ('' for a span that is not recording a real trace). */
export function traceparentOf(span: Span): string {
  const carrier: { traceparent?: string } = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent ?? '';
}

/** The active span, if any. */
export function activeSpan(): Span | undefined {
  return trace.getActiveSpan();
}

/**
 * Starts a span in the trace named by `traceparent` (under the active span
 * when empty), linked to `links`. End it with `endSpan`.
 */
export function startSpanInTrace(name: string, traceparent: string, links: SpanContext[] = []): Span {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
  return tracer.startSpan(name, { links: links.map((l) => ({ context: l })) }, parent);
}

/** Starts a span that begins a trace of its own, linked to `links`. */
export function startRootSpan(name: string, links: SpanContext[] = []): Span {
  return tracer.startSpan(name, { root: true, links: links.map((l) => ({ context: l })) });
}

/** Runs `fn` with `span` active: logs written inside carry its trace id. */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/**
 * Runs `fn` with no span made for what it calls (a gRPC call, a query): for calls made so often
 * for so little, each its own trace, that their spans would only hide the traces that matter
 * (a phone's claims, most of which find nothing).
 */
export function untraced<T>(fn: () => T): T {
  return context.with(suppressTracing(context.active()), fn);
}

/** A span under `parent` (in its trace); the caller ends it. */
export function startChildSpan(parent: Span, name: string, attributes: Attributes = {}): Span {
  return tracer.startSpan(name, { attributes }, trace.setSpan(ROOT_CONTEXT, parent));
}

/** Ends a span, marked failed with `errorCode` when one is given. */
export function endSpan(span: Span, errorCode?: string): void {
  if (errorCode) span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
  span.end();
}

/**
 * Starts the server span of an incoming HTTP request, continuing the trace
 * of its W3C `traceparent` header when it has one. End it with `endSpan`.
 */
export function startServerSpan(name: string, headers: Record<string, string | string[] | undefined>, attributes: Attributes): Span {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
}
