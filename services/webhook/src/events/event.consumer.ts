import type { JsMsg } from '@nats-io/jetstream';
import {
  decodeEventBatch,
  type EVENT_BATCH_DURABLES,
  decodeJsonPayload,
  endSpan,
  newId,
  runDurableConsumer,
  startConsumerSpan,
  startItemConsumerSpan,
  traceparentOf,
  untraced,
  type DurableConsumer,
  type Logger,
  type Nats,
  type PublicEvent,
  type Span,
} from '@smsgw/platform';
import type { DeliveryJob, DeliveryRepository, NewEvent } from '../data/delivery.repository';
import type { EndpointRepository } from '../data/endpoint.repository';
import { isEventKind } from '../domain/event-kinds';
import { destinationsOf } from '../domain/routing';
import type { ListenPublisher } from './listen.publisher';

export const EVENTS_DURABLE = 'webhook-events';
export const EVENT_BATCHES_DURABLE: (typeof EVENT_BATCH_DURABLES)[number] = 'webhook-event-batches';
/** Messages taken into one transaction at most: events one a message, or batches of events. */
const MAX_MESSAGES = { single: 200, batches: 10 } as const;
/**
 * How long messages wait for the ones the server still holds: those may go to another replica
 * (replicas share the durable), and then nothing comes to flush what waits here.
 */
const GATHER_MS = 20;

function parseEvent(value: unknown): PublicEvent | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const e = value as Partial<PublicEvent>;
  if (typeof e.event !== 'string' || !isEventKind(e.event) || typeof e.event_id !== 'string' || typeof e.timestamp !== 'string')
    return undefined;
  if (!e.data || typeof e.data !== 'object' || !e.routing || typeof e.routing.client_id !== 'string') return undefined;
  if (e.routing.mode !== 'live' && e.routing.mode !== 'test') return undefined;
  return e as PublicEvent;
}

/** Where a consumer reads: the event batches (`event-batches.>`, many a message), or the events one a message (`events.>`). */
export type EventSource = 'batches' | 'single';

/**
 * Turns the public events into deliveries: the batches of events (`event-batches.>`, what the
 * message service publishes), or one event a message (`events.>`: the hub's device events, and
 * what earlier versions published). Messages are taken in stream order and gathered while the
 * server holds more (for `GATHER_MS` at most): the destinations of their events are stored in one
 * transaction, the messages acknowledged, and each delivery's first attempt queued at once, in
 * event order. A crash before the acknowledgement means the messages come again; their deliveries
 * are found, not doubled (nor are those of an event that comes twice, in two batches).
 */
export class EventConsumer {
  private consumer?: DurableConsumer;
  private batch: JsMsg[] = [];
  /** Flushes what `batch` holds once `GATHER_MS` have passed without it filling. */
  private gatherTimer?: NodeJS.Timeout;
  /** The flush under way: flushes run one at a time, in the stream's order. */
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly source: EventSource,
    private readonly nats: Nats,
    private readonly endpoints: EndpointRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly enqueue: (job: DeliveryJob) => boolean,
    private readonly log: Logger,
    private readonly listeners?: ListenPublisher,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    const batches = this.source === 'batches';
    this.consumer = await runDurableConsumer(
      this.nats,
      {
        stream: batches ? names.eventBatchesStream : names.eventsStream,
        durable: batches ? EVENT_BATCHES_DURABLE : EVENTS_DURABLE,
        filterSubject: batches ? names.eventBatches : names.events,
        // Gathering up to MAX_MESSAGES needs that many at hand, and a slow Postgres may hold many unsettled.
        pullAhead: batches ? 64 : 1000,
        maxAckPending: 20_000,
        log: this.log,
      },
      async (msg) => {
        this.batch.push(msg);
        // Flush when nothing else is waiting on the server, or the batch is full; else shortly.
        if (msg.info.pending > 0 && this.batch.length < MAX_MESSAGES[this.source]) {
          this.gatherTimer ??= setTimeout(
            () => this.flush().catch((err: unknown) => this.log.error({ err }, 'storing gathered events failed; they will come again')),
            GATHER_MS,
          );
          return;
        }
        await this.flush();
      },
    );
  }

  /** Stores what is gathered, after the flush under way; a failed one leaves its messages unacknowledged. */
  private flush(): Promise<void> {
    clearTimeout(this.gatherTimer);
    this.gatherTimer = undefined;
    const taken = this.batch;
    this.batch = [];
    if (taken.length === 0) return this.flushing;
    const run = this.flushing.then(() => this.handle(taken));
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** The events of a message, each in a span of its own trace (the SMS's); undefined when the message cannot be read. */
  private eventsOf(msg: JsMsg): { event: PublicEvent; span: Span }[] | undefined {
    const attributes = (e: PublicEvent) => ({ 'smsgw.event_id': e.event_id, 'smsgw.event': e.event });
    if (this.source === 'single') {
      const event = parseEvent(decodeJsonPayload(msg.data));
      return event ? [{ event, span: startConsumerSpan(msg, attributes(event)) }] : undefined;
    }
    const raw = decodeEventBatch(msg.data);
    if (!raw) return undefined;
    const out: { event: PublicEvent; span: Span }[] = [];
    for (const value of raw) {
      const event = parseEvent(value);
      if (event) out.push({ event, span: startItemConsumerSpan(`events.${event.event}`, event.routing.traceparent, attributes(event)) });
      else this.log.warn({ subject: msg.subject }, 'malformed event dropped');
    }
    return out;
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    const events: { event: PublicEvent; span: Span }[] = [];
    const taken: JsMsg[] = [];
    for (const msg of batch) {
      const found = this.eventsOf(msg);
      if (!found) {
        this.log.warn({ subject: msg.subject }, 'malformed event dropped');
        msg.term();
        continue;
      }
      taken.push(msg);
      events.push(...found);
    }
    this.listeners?.publish(events.map((e) => e.event));
    for (;;) {
      try {
        // The batch's statements make no spans: each event has its own, in its trace.
        const jobs = await untraced(() => this.store(events));
        for (const msg of taken) msg.ack();
        for (const { span } of events) endSpan(span);
        for (const job of jobs) this.enqueue(job);
        return;
      } catch (err) {
        // Postgres is away: keep the batch (and its order) and try again.
        this.log.error({ err, events: events.length }, 'storing deliveries failed; retrying');
        for (const msg of taken) msg.working();
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async store(batch: { event: PublicEvent; span: Span }[]): Promise<DeliveryJob[]> {
    const clients = [...new Set(batch.map((e) => e.event.routing.client_id))];
    const endpoints = await this.endpoints.forClients(clients);
    const byId = new Map(endpoints.map((e) => [e.endpoint_id, e]));
    const toStore: NewEvent[] = [];
    for (const { event, span } of batch) {
      const destinations = destinationsOf(event, endpoints);
      span.setAttribute('smsgw.webhook.destinations', destinations.length);
      if (destinations.length === 0) continue;
      toStore.push({
        eventId: event.event_id,
        clientId: event.routing.client_id,
        mode: event.routing.mode,
        kind: event.event,
        data: JSON.stringify(event.data),
        traceparent: traceparentOf(span) || null,
        destinations: destinations.map((d) => ({
          deliveryId: newId('dlv'),
          key: d.key,
          url: d.url,
          endpointId: d.kind === 'endpoint' ? d.endpointId : null,
          secret: d.kind === 'endpoint' ? byId.get(d.endpointId)!.secret : null,
          batch: d.kind === 'endpoint' && byId.get(d.endpointId)!.batch,
        })),
      });
    }
    return this.deliveries.recordEvents(toStore);
  }

  /** Stops taking messages; those gathered and not stored are not acknowledged: they come again. */
  async stop(): Promise<void> {
    await this.consumer?.stop();
    clearTimeout(this.gatherTimer);
    this.gatherTimer = undefined;
    await this.flushing;
  }
}
