import type { JsMsg } from '@nats-io/jetstream';
import {
  decodeJsonPayload,
  endSpan,
  newId,
  runDurableConsumer,
  startConsumerSpan,
  traceparentOf,
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

const DURABLE = 'webhook-events';
/** Events taken into one transaction at most. */
const MAX_BATCH = 200;

function parseEvent(bytes: Uint8Array): PublicEvent | undefined {
  const e = decodeJsonPayload<PublicEvent>(bytes);
  if (!e || typeof e.event !== 'string' || !isEventKind(e.event) || typeof e.event_id !== 'string' || typeof e.timestamp !== 'string')
    return undefined;
  if (!e.data || typeof e.data !== 'object' || !e.routing || typeof e.routing.client_id !== 'string') return undefined;
  if (e.routing.mode !== 'live' && e.routing.mode !== 'test') return undefined;
  return e as PublicEvent;
}

/**
 * Turns the public events (`events.>`) into deliveries. Events are taken in
 * batches, in stream order: their destinations are stored in one transaction,
 * the events acknowledged, and each delivery's first attempt queued at once,
 * in event order. A crash before the acknowledgement means the batch comes
 * again; its deliveries are found, not doubled.
 */
export class EventConsumer {
  private consumer?: DurableConsumer;
  private batch: JsMsg[] = [];

  constructor(
    private readonly nats: Nats,
    private readonly endpoints: EndpointRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly enqueue: (job: DeliveryJob) => boolean,
    private readonly log: Logger,
    private readonly listeners?: ListenPublisher,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      {
        stream: names.eventsStream,
        durable: DURABLE,
        filterSubject: names.events,
        // Batches of up to MAX_BATCH need that many messages at hand, and a slow Postgres may hold many unsettled.
        pullAhead: 1000,
        maxAckPending: 20_000,
        log: this.log,
      },
      async (msg) => {
        this.batch.push(msg);
        // Flush when nothing else is waiting on the server, or the batch is full.
        if (msg.info.pending > 0 && this.batch.length < MAX_BATCH) return;
        const taken = this.batch;
        this.batch = [];
        await this.handle(taken);
      },
    );
  }

  private async handle(batch: JsMsg[]): Promise<void> {
    const events: { msg: JsMsg; event: PublicEvent; span: Span }[] = [];
    for (const msg of batch) {
      const event = parseEvent(msg.data);
      // Each event continues its own trace (the SMS's), whatever batch it is stored with.
      if (event) {
        events.push({ msg, event, span: startConsumerSpan(msg, { 'smsgw.event_id': event.event_id, 'smsgw.event': event.event }) });
        this.listeners?.publish(event);
      } else {
        this.log.warn({ subject: msg.subject }, 'malformed event dropped');
        msg.term();
      }
    }
    for (;;) {
      try {
        const jobs = await this.store(events);
        for (const { msg, span } of events) {
          msg.ack();
          endSpan(span);
        }
        for (const job of jobs) this.enqueue(job);
        return;
      } catch (err) {
        // Postgres is away: keep the batch (and its order) and try again.
        this.log.error({ err, events: events.length }, 'storing deliveries failed; retrying');
        for (const { msg } of events) msg.working();
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private async store(batch: { event: PublicEvent; span: Span }[]): Promise<DeliveryJob[]> {
    const clients = [...new Set(batch.map((e) => e.event.routing.client_id))];
    const endpoints = await this.endpoints.forClients(clients);
    const secrets = new Map(endpoints.map((e) => [e.endpoint_id, e.secret]));
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
          secret: d.kind === 'endpoint' ? secrets.get(d.endpointId)! : null,
        })),
      });
    }
    return this.deliveries.recordEvents(toStore);
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
