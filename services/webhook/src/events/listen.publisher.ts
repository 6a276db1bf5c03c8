import { listenSubject, type Logger, type Nats, type PublicEvent } from '@smsgw/platform';

/**
 * `smsgw listen`: the events of each batch consumed go out at once on core NATS,
 * `listen.<client_id>.<mode>`, one message per client and mode holding a JSON array of the public
 * envelopes without their routing, in the order consumed (one message per event cost NATS and
 * this service two messages an SMS, listened to or not). Fire-and-forget: nobody listening, or
 * NATS away, never touches a delivery. A gateway reads an array or, as earlier versions published,
 * one envelope.
 */
export class ListenPublisher {
  private failures = 0;

  constructor(
    private readonly nats: Nats,
    private readonly log: Logger,
  ) {}

  publish(events: readonly PublicEvent[]): void {
    const bySubject = new Map<string, string[]>();
    for (const event of events) {
      const { client_id: clientId, mode } = event.routing;
      const subject = listenSubject(this.nats.names.prefix, clientId, mode);
      const envelope = { event: event.event, event_id: event.event_id, timestamp: event.timestamp, data: event.data };
      const list = bySubject.get(subject);
      if (list) list.push(JSON.stringify(envelope));
      else bySubject.set(subject, [JSON.stringify(envelope)]);
    }
    for (const [subject, envelopes] of bySubject) {
      try {
        this.nats.nc.publish(subject, `[${envelopes.join(',')}]`);
      } catch (err) {
        // Closed or draining connection: log the first failure of a run, not one line per batch.
        if (this.failures++ === 0) this.log.warn({ err }, 'publishing events to their listeners failed');
      }
    }
  }
}
