import { decodeEventBatch, decodeJsonPayload, type Nats, type PublicEvent } from '@smsgw/platform';

/**
 * Every public event published from now on, as it goes to JetStream: core subscriptions to the
 * events' subjects (one event a message) and the event batches' (many a message) see each one as
 * it is published, whoever consumes the streams. `subject` names each event's kind as
 * `events.<kind>`, whichever way it travelled.
 */
export async function eventTap(nats: Nats): Promise<{ events: { subject: string; event: PublicEvent }[]; stop(): void }> {
  const events: { subject: string; event: PublicEvent }[] = [];
  const add = (event: PublicEvent) => events.push({ subject: nats.names.event(event.event), event });
  const single = nats.nc.subscribe(nats.names.events, {
    callback: (_err, msg) => {
      const event = decodeJsonPayload<PublicEvent>(msg.data);
      if (event?.event) add(event as PublicEvent);
    },
  });
  const batches = nats.nc.subscribe(nats.names.eventBatches, {
    callback: (_err, msg) => {
      for (const event of (decodeEventBatch(msg.data) as PublicEvent[] | undefined) ?? []) add(event);
    },
  });
  await nats.nc.flush();
  return {
    events,
    stop: () => {
      single.unsubscribe();
      batches.unsubscribe();
    },
  };
}
