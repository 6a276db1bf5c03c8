import { modeToProto } from '@smsgw/platform';
import type { webhook } from '@smsgw/proto';
import type { DeliveryRow } from '../data/delivery-log.repository';
import type { EndpointRow } from '../data/endpoint.repository';

const iso = (d: Date | null) => (d ? d.toISOString() : '');

export function endpointOut(e: EndpointRow, secret = ''): webhook.Endpoint {
  return {
    endpointId: e.endpoint_id,
    clientId: e.client_id,
    url: e.url,
    events: e.events,
    secret,
    createdAt: e.created_at.toISOString(),
    mode: modeToProto(e.mode),
    enabled: e.enabled,
    description: e.description,
    batch: e.batch,
  };
}

export function deliveryOut(d: DeliveryRow): webhook.Delivery {
  return {
    deliveryId: d.delivery_id,
    eventId: d.event_id,
    url: d.url,
    attempt: d.attempts,
    state: d.state,
    httpStatus: d.last_status ?? 0,
    error: d.last_error ?? '',
    attemptedAt: iso(d.last_attempt_at),
    event: d.kind,
    endpointId: d.endpoint_id ?? '',
    createdAt: d.created_at.toISOString(),
    nextAttemptAt: d.state === 'pending' ? iso(d.next_attempt_at) : '',
    replayOf: d.replay_of ?? '',
    attempts: d.attempt_log.map((a) => ({
      attempt: a.attempt,
      attemptedAt: a.attempted_at.toISOString(),
      httpStatus: a.http_status ?? 0,
      latencyMs: a.latency_ms,
      error: a.error ?? '',
    })),
  };
}
