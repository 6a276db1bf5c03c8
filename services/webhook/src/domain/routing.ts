import type { PublicEvent } from '@smsgw/platform';
import { MESSAGE_KINDS, OPT_IN_KINDS } from './event-kinds';

export interface EndpointTarget {
  endpoint_id: string;
  client_id: string;
  mode: 'live' | 'test';
  url: string;
  events: string[];
  enabled: boolean;
}

export type Destination =
  { kind: 'endpoint'; key: string; url: string; endpointId: string } | { kind: 'message-url'; key: string; url: string };

/**
 * Where one event goes. A message's `webhook_url` takes its `sms.*` events
 * instead of the global endpoints; otherwise every enabled endpoint of the
 * event's client and mode that subscribed to its kind. A reply (an
 * `sms.received` routed to the `webhook_url` of a message sent with
 * `replies: true`) goes to that URL and to the subscribed endpoints as well:
 * the account's own inbox hook still hears of every received SMS. Test and
 * live never mix: an endpoint receives only events of its own mode. An
 * opt-in kind (`otp.fraud_suspected`) goes only to the endpoints that name
 * it, never to a message's URL.
 */
export function destinationsOf(event: PublicEvent, endpoints: readonly EndpointTarget[]): Destination[] {
  const { client_id, mode } = event.routing;
  const webhook_url = OPT_IN_KINDS.includes(event.event) ? undefined : event.routing.webhook_url;
  const messageUrl: Destination[] = webhook_url ? [{ kind: 'message-url', key: `url:${webhook_url}`, url: webhook_url }] : [];
  if (webhook_url && MESSAGE_KINDS.includes(event.event)) return messageUrl;
  const subscribed: Destination[] = endpoints
    .filter((e) => e.client_id === client_id && e.mode === mode && e.enabled && e.events.includes(event.event))
    .map((e) => ({ kind: 'endpoint', key: `endpoint:${e.endpoint_id}`, url: e.url, endpointId: e.endpoint_id }));
  return event.event === 'sms.received' ? [...messageUrl, ...subscribed] : subscribed;
}

/**
 * The body of one attempt, exactly as it is signed and sent: the event's kind,
 * id and data (the same on every attempt and replay) and the `timestamp` of
 * this attempt, so that a receiver can refuse an old delivery (a replayed
 * capture) without refusing a late retry. The routing fields stay inside the
 * platform; the time of the event itself is in `data` (`sent_at`, `at`...).
 */
export function envelopeBody(kind: string, eventId: string, signedAt: Date, dataJson: string): string {
  return `{"event":${JSON.stringify(kind)},"event_id":${JSON.stringify(eventId)},"timestamp":"${signedAt.toISOString()}","data":${dataJson}}`;
}

/** The most events one POST to a batched endpoint carries. */
export const MAX_BATCH_EVENTS = 100;

/** The body of a batch's attempt, exactly as it is signed and sent: a JSON array of envelopes (`envelopeBody`), in the events' order. */
export function batchBody(envelopes: readonly string[]): string {
  return `[${envelopes.join(',')}]`;
}
