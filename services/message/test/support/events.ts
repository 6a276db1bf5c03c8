import { decodeEventBatch, ensureEventBatchInterest, ensureStream, streamConfigs, type Nats, type PublicEvent } from '@smsgw/platform';

export interface StoredEvent {
  /** The event's subject as one event a message would have had it: `events.<kind>`. */
  subject: string;
  /** The Nats-Msg-Id of the message that carried it (a batch's). */
  msgId: string | undefined;
  /** The event, its routing without the trace it carried (a detail of the transport). */
  event: PublicEvent;
}

/** The streams the message service publishes its events to, as it ensures them: the batches' with their consumers' interest. */
export async function ensureEventStreams(nats: Nats): Promise<void> {
  const streams = streamConfigs(nats.names);
  await ensureStream(nats.jsm, streams.events);
  await ensureStream(nats.jsm, streams.eventBatches);
  await ensureEventBatchInterest(nats.jsm, nats.names);
}

/** Every event stored in the events stream (one a message) and the event batches stream (many a message), in order. */
export async function storedEvents(nats: Nats): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (const stream of [nats.names.eventsStream, nats.names.eventBatchesStream]) {
    const info = await nats.jsm.streams.info(stream).catch(() => undefined);
    if (!info) continue;
    for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
      const stored = await nats.jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
      if (!stored) continue;
      const msgId = stored.header?.get('Nats-Msg-Id') || undefined;
      const events = (decodeEventBatch(stored.data) as PublicEvent[] | undefined) ?? [stored.json<PublicEvent>()];
      for (const event of events) {
        const { traceparent: _trace, ...routing } = event.routing;
        out.push({ subject: nats.names.event(event.event), msgId, event: { ...event, routing } });
      }
    }
  }
  return out;
}
