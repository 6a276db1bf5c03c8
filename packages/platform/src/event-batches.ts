import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, trace, type Attributes, type Span } from '@opentelemetry/api';
import { Batches } from './batches';
import type { EventBatch, PublicEvent } from './events';
import { publishBatchTraced, startCreateSpan } from './messaging-trace';
import type { Nats } from './nats';
import { endSpan, traceparentOf } from './tracing';

/** An event to publish, with the attributes of its `create` span (ids only: never a number or a text). */
export interface OutgoingEvent {
  event: PublicEvent;
  attributes?: Attributes;
  /** The span the event's trace goes on from (the active one when absent). */
  parent?: Span;
}

/** How long an event published on its own waits for others of the moment. */
const GATHER_MS = 5;
/** Event ids this publisher remembers having stored (the latest), so as not to store them again. */
const REMEMBERED = 20_000;

/**
 * Publishes public events to JetStream many in one message (`EventBatch` on
 * `event-batches.<publisher>`): a consumer then takes a message, not a message per event. Each
 * event goes on in its own trace (a `create` span whose context it carries in
 * `routing.traceparent`); the batch's `send` span links to them.
 *
 * `publishAll` publishes the events of one piece of work together (a batch of reports), under a
 * `Nats-Msg-Id` the caller derives from that work, so that the same work done again after a
 * crash is stored once. `publish` gathers the events published on their own at the same moment
 * (an expiry, an opt-out); their batch's id comes from their event ids.
 *
 * An event is published again when the work is done again (a batch of reports redelivered after
 * a crash, a phone's report sent twice): the publisher leaves out the events it remembers having
 * stored lately, and the consumers keep each event id once (the webhook service's deliveries).
 */
export class EventBatchPublisher {
  private readonly gathered = new Batches<string, OutgoingEvent & { span: Span }, void>((items) => this.publishGathered(items));
  /** The ids of the events stored lately, oldest first. */
  private readonly stored = new Set<string>();

  constructor(
    private readonly nats: Pick<Nats, 'js' | 'names'>,
    /** The publishing service: the subject's last token. */
    private readonly publisher: string,
  ) {}

  /** Publishes `events` in one message with `msgId` (JetStream drops a second one within its window); resolves once stored. */
  async publishAll(all: readonly OutgoingEvent[], msgId: string): Promise<void> {
    const events = all.filter((e) => !this.stored.has(e.event.event_id));
    if (events.length === 0) return;
    const spans = events.map((e) => this.createSpan(e));
    try {
      await this.send(
        events.map((e, i) => withTrace(e.event, spans[i]!)),
        spans,
        msgId,
      );
      spans.forEach((s) => endSpan(s));
    } catch (err) {
      spans.forEach((s) => endSpan(s, 'NOT_PUBLISHED'));
      throw err;
    }
  }

  /** Publishes one event with the others published on their own at this moment; resolves once stored. */
  async publish(event: OutgoingEvent): Promise<void> {
    if (this.stored.has(event.event.event_id)) return;
    const span = this.createSpan(event);
    try {
      await this.gathered.add(event.event.event_id, Object.assign({}, event, { span }), GATHER_MS);
      endSpan(span);
    } catch (err) {
      endSpan(span, 'NOT_PUBLISHED');
      throw err;
    }
  }

  private createSpan({ event, attributes, parent }: OutgoingEvent): Span {
    return startCreateSpan(
      `events.${event.event}`,
      { 'smsgw.event_id': event.event_id, ...attributes },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : undefined,
    );
  }

  private async publishGathered(items: ReadonlyMap<string, OutgoingEvent & { span: Span }>): Promise<ReadonlyMap<string, void>> {
    const list = [...items.values()];
    const ids = [...items.keys()].sort().join(',');
    await this.send(
      list.map((e) => withTrace(e.event, e.span)),
      list.map((e) => e.span),
      `events-${createHash('sha256').update(ids).digest('hex').slice(0, 32)}`,
    );
    return new Map();
  }

  private async send(events: PublicEvent[], spans: readonly Span[], msgId: string): Promise<void> {
    const batch: EventBatch = { events };
    const { names } = this.nats;
    await publishBatchTraced(this.nats.js, names.eventBatch(this.publisher), 'event-batches.*', JSON.stringify(batch), spans, {
      msgID: msgId,
    });
    for (const e of events) {
      this.stored.add(e.event_id);
      if (this.stored.size > REMEMBERED) this.stored.delete(this.stored.values().next().value!);
    }
  }
}

// Object.assign, not a spread copy with a field more: every event of the SMS path comes through
// here (docs/contributors/conventions.md, "Busy paths").
const withTrace = (event: PublicEvent, span: Span): PublicEvent => ({
  ...event,
  routing: Object.assign({}, event.routing, { traceparent: traceparentOf(span) }),
});
