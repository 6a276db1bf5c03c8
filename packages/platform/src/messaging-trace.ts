/**
 * W3C trace context across NATS and JetStream, injected and extracted here
 * only: a publisher sends `traceparent` (and `tracestate`) as message
 * headers from a PRODUCER span; a consumer continues the trace in a CONSUMER
 * span. Span names and attributes follow OpenTelemetry's messaging
 * conventions (`<operation> <destination>`, `messaging.*`), with the
 * destination's template (ids replaced by `*`), so names stay few.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { JetStreamClient, JetStreamPublishOptions, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

const tracer = trace.getTracer('smsgw-messaging');

/** `agent.report.device_01…` → `agent.report.*`; a test prefix is kept out too. */
export function subjectTemplate(subject: string): string {
  return subject
    .split('.')
    .map((token) => (/^(device|msg|dlv|evt|otp|whe|tmr)_[0-9A-Za-z]+$/.test(token) ? '*' : token))
    .join('.');
}

const headerCarrier = {
  get: (h: MsgHdrs, key: string) => h.get(key) || undefined,
  keys: (h: MsgHdrs) => h.keys(),
};

/** NATS headers holding the active trace context (added to `existing` when given). */
export function traceHeaders(existing?: MsgHdrs, ctx: Context = context.active()): MsgHdrs {
  const h = existing ?? natsHeaders();
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  for (const [k, v] of Object.entries(carrier)) h.set(k, v);
  return h;
}

/** The trace context a received message carries (the root context when none). */
export function contextOf(h: MsgHdrs | undefined): Context {
  return h ? propagation.extract(ROOT_CONTEXT, h, headerCarrier) : ROOT_CONTEXT;
}

/**
 * Publishes to JetStream from a PRODUCER span (`publish <subject template>`),
 * the message carrying that span's context; resolves once JetStream has it.
 */
export async function publishTraced(
  js: JetStreamClient,
  subject: string,
  data: string | Uint8Array,
  options: Partial<JetStreamPublishOptions> = {},
  attributes: Attributes = {},
): Promise<PubAck> {
  const template = subjectTemplate(subject);
  const span = tracer.startSpan(`publish ${template}`, {
    kind: SpanKind.PRODUCER,
    attributes: { 'messaging.system': 'nats', 'messaging.operation.type': 'send', 'messaging.destination.name': template, ...attributes },
  });
  try {
    const ctx = trace.setSpan(context.active(), span);
    const ack = await js.publish(subject, data, { ...options, headers: traceHeaders(options.headers, ctx) });
    span.setAttribute('messaging.nats.stream.sequence', ack.seq);
    if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
    return ack;
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` in a CONSUMER span (`process <subject template>`) that continues
 * the trace of the message's headers: logs and calls made inside belong to it.
 */
export async function consumeTraced<T>(
  msg: { subject: string; headers?: MsgHdrs },
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  const template = subjectTemplate(msg.subject);
  const span = tracer.startSpan(
    `process ${template}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': template,
        ...attributes,
      },
    },
    contextOf(msg.headers),
  );
  try {
    return await context.with(trace.setSpan(contextOf(msg.headers), span), fn);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
    throw err;
  } finally {
    span.end();
  }
}

/** Runs `fn` in an INTERNAL span of the trace named by `traceparent` (the active one when empty). */
export async function inTrace<T>(name: string, traceparent: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
  const span = tracer.startSpan(name, { attributes }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), fn);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A CONSUMER span for one message of a batch, continuing its headers' trace;
 * the caller ends it (with `endSpan`) when the message is handled.
 */
export function startConsumerSpan(msg: { subject: string; headers?: MsgHdrs }, attributes: Attributes): Span {
  const template = subjectTemplate(msg.subject);
  return tracer.startSpan(
    `process ${template}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': template,
        ...attributes,
      },
    },
    contextOf(msg.headers),
  );
}

/** A CLIENT span in the trace named by `traceparent` (an outgoing call such as a webhook POST); the caller ends it. */
export function startClientSpan(name: string, traceparent: string, attributes: Attributes): Span {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();
  return tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
}

/**
 * A CLIENT span for one outgoing call that carries many items (a batch of webhook events), in a
 * trace of its own and linked to each item's span (each item goes on in its own trace), as
 * `publishBatchTraced` does for a batch published to JetStream; the caller ends it.
 */
export function startBatchClientSpan(name: string, items: readonly Span[], attributes: Attributes): Span {
  return tracer.startSpan(
    name,
    { kind: SpanKind.CLIENT, attributes, links: items.map((item) => ({ context: item.spanContext() })) },
    ROOT_CONTEXT,
  );
}

/**
 * A PRODUCER span `create <destination>` for one item of a batch (a report, an event), in the
 * active trace: the item carries its context (`traceparentOf`), and the batch's `send` span
 * links to it (`publishBatchTraced`). The caller ends it once the batch is stored.
 */
export function startCreateSpan(destination: string, attributes: Attributes, parent?: Context): Span {
  return tracer.startSpan(
    `create ${destination}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'create',
        'messaging.destination.name': destination,
        ...attributes,
      },
    },
    parent ?? context.active(),
  );
}

/**
 * Publishes a batch to JetStream from a PRODUCER span `send <destination>` of its own, linked to
 * the `create` span of each item (each item goes on in its own trace); resolves once JetStream
 * has it. The items' spans are the caller's to end.
 */
export async function publishBatchTraced(
  js: JetStreamClient,
  subject: string,
  destination: string,
  data: string | Uint8Array,
  items: readonly Span[],
  options: Partial<JetStreamPublishOptions> = {},
): Promise<PubAck> {
  const span = tracer.startSpan(
    `send ${destination}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'send',
        'messaging.destination.name': destination,
        'messaging.batch.message_count': items.length,
      },
      links: items.map((item) => ({ context: item.spanContext() })),
    },
    ROOT_CONTEXT,
  );
  try {
    const ack = await js.publish(subject, data, options);
    span.setAttribute('messaging.nats.stream.sequence', ack.seq);
    if (ack.duplicate) span.setAttribute('messaging.nats.duplicate', true);
    return ack;
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).name });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * A CONSUMER span `process <destination>` for one item of a batch, continuing the trace it
 * carries (`traceparent`; a trace of its own when absent); the caller ends it.
 */
export function startItemConsumerSpan(destination: string, traceparent: string | undefined, attributes: Attributes): Span {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return tracer.startSpan(
    `process ${destination}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': destination,
        ...attributes,
      },
    },
    parent,
  );
}
