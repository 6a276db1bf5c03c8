import { listenSubject, type Logger, type Nats, type PublicEvent } from '@smsgw/platform';

/**
 * `smsgw listen`: every event consumed goes out at once on core NATS, `listen.<client_id>.<mode>`,
 * as the public envelope without its routing; the gateway streams it to the client's open
 * listeners. Fire-and-forget: nobody listening, or NATS away, never touches a delivery.
 */
export class ListenPublisher {
  private failures = 0;

  constructor(
    private readonly nats: Nats,
    private readonly log: Logger,
  ) {}

  publish(event: PublicEvent): void {
    const { client_id: clientId, mode } = event.routing;
    const envelope = { event: event.event, event_id: event.event_id, timestamp: event.timestamp, data: event.data };
    try {
      this.nats.nc.publish(listenSubject(this.nats.names.prefix, clientId, mode), JSON.stringify(envelope));
    } catch (err) {
      // Closed or draining connection: log the first failure of a run, not one line per event.
      if (this.failures++ === 0) this.log.warn({ err }, 'publishing an event to its listeners failed');
    }
  }
}
