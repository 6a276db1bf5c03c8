import type { PublicEvent } from '@smsgw/platform';
import { MESSAGE_KINDS } from './event-kinds';

export interface EndpointTarget {
  endpoint_id: string;
  client_id: string;
  mode: 'live' | 'test';
  url: string;
  events: string[];
  enabled: boolean;
}

export type Destination =
  | { kind: 'endpoint'; key: string; url: string; endpointId: string }
  | { kind: 'message-url'; key: string; url: string };

/**
 * Where one event goes. A message's `webhook_url` takes its `sms.*` events
 * instead of the global endpoints; otherwise every enabled endpoint of the
 * event's client and mode that subscribed to its kind. Test and live never
 * mix: an endpoint receives only events of its own mode.
 */
export function destinationsOf(event: PublicEvent, endpoints: readonly EndpointTarget[]): Destination[] {
  const { client_id, mode, webhook_url } = event.routing;
  if (webhook_url && MESSAGE_KINDS.includes(event.event)) {
    return [{ kind: 'message-url', key: `url:${webhook_url}`, url: webhook_url }];
  }
  return endpoints
    .filter((e) => e.client_id === client_id && e.mode === mode && e.enabled && e.events.includes(event.event))
    .map((e) => ({ kind: 'endpoint', key: `endpoint:${e.endpoint_id}`, url: e.url, endpointId: e.endpoint_id }));
}

/** The public envelope, exactly as it is signed and sent: the routing fields stay inside the platform. */
export function envelopeBody(event: PublicEvent): string {
  return JSON.stringify({ event: event.event, event_id: event.event_id, timestamp: event.timestamp, data: event.data });
}
