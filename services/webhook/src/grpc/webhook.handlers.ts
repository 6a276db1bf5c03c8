import { randomBytes } from 'node:crypto';
import { AppError, currentTraceparent, modeFromProto, modeToProto, newId, type AsyncHandlers, type PromiseClient } from '@smsgw/platform';
import type { account, webhook } from '@smsgw/proto';
import type { DeliveryJob, DeliveryRepository, DeliveryRow } from '../data/delivery.repository';
import type { EndpointRepository, EndpointRow } from '../data/endpoint.repository';
import { isEventKind, parseKinds } from '../domain/event-kinds';
import { testEvent } from '../domain/test-event';

/** Why a URL may not receive webhooks (not HTTPS, a private address...), or undefined when it may. */
export type UrlCheck = (url: string) => Promise<string | undefined>;

export interface WebhookDeps {
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  accounts: PromiseClient<account.AccountServiceClient>;
  checkUrl: UrlCheck;
  enqueue: (job: DeliveryJob) => boolean;
}

const iso = (d: Date | null) => (d ? d.toISOString() : '');

function endpointOut(e: EndpointRow, secret = ''): webhook.Endpoint {
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
  };
}

function deliveryOut(d: DeliveryRow): webhook.Delivery {
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

const urlError = (reason: string) => new AppError('INVALID_WEBHOOK_URL', { details: [{ field: 'url', code: 'INVALID_WEBHOOK_URL', message: reason }] });
// The public API has no webhook routes: these use the catalogue's generic codes, with the precise one in `details`.
const kindsError = () =>
  new AppError('VALIDATION_ERROR', {
    details: [{ field: 'events', code: 'INVALID_WEBHOOK_EVENTS', message: 'one or more of sms.sent, sms.delivered, sms.failed, device.connected, device.disconnected' }],
  });
const notFound = (what: 'WEBHOOK_NOT_FOUND' | 'EVENT_NOT_FOUND') => new AppError('NOT_FOUND', { details: [{ code: what }] });

/** Endpoints, test events, replays and the delivery log over gRPC (the dashboard and the operator command line). */
export function webhookHandlers({ endpoints, deliveries, accounts, checkUrl, enqueue }: WebhookDeps): AsyncHandlers<webhook.WebhookServiceHandlers> {
  async function knownClient(clientId: string): Promise<void> {
    if (!clientId) throw new AppError('INVALID_CLIENT_ID');
    await accounts.getClient({ clientId });
  }

  async function endpointOf(clientId: string, endpointId: string): Promise<EndpointRow> {
    const found = endpointId ? await endpoints.get(clientId, endpointId) : undefined;
    if (!found) throw notFound('WEBHOOK_NOT_FOUND');
    return found;
  }

  async function allowedUrl(url: string): Promise<string> {
    const refused = await checkUrl(url);
    if (refused) throw urlError(refused);
    return url;
  }

  return {
    async CreateEndpoint(req) {
      await knownClient(req.clientId);
      const kinds = parseKinds(req.events);
      if (!kinds) throw kindsError();
      const url = await allowedUrl(req.url);
      // The secret is shown once; `whsec_` tells a reader what it is, as in Stripe's.
      const secret = `whsec_${randomBytes(32).toString('base64url')}`;
      const created = await endpoints.insert({
        endpointId: newId('whe'),
        clientId: req.clientId,
        mode: modeFromProto(req.mode),
        url,
        events: kinds,
        secret,
        description: req.description.slice(0, 500),
      });
      return endpointOut(created, secret);
    },

    async ListEndpoints(req) {
      return { endpoints: (await endpoints.list(req.clientId)).map((e) => endpointOut(e)) };
    },

    async UpdateEndpoint(req) {
      await endpointOf(req.clientId, req.endpointId);
      let kinds: string[] | undefined;
      if (req.events.length > 0) {
        kinds = parseKinds(req.events);
        if (!kinds) throw kindsError();
      }
      const updated = await endpoints.update(req.clientId, req.endpointId, {
        url: req.url ? await allowedUrl(req.url) : undefined,
        events: kinds,
        enabled: req.setEnabled ? req.enabled : undefined,
        description: req.setDescription ? req.description.slice(0, 500) : undefined,
      });
      if (!updated) throw notFound('WEBHOOK_NOT_FOUND');
      return endpointOut(updated);
    },

    async DeleteEndpoint(req) {
      const deleted = await endpoints.delete(req.clientId, req.endpointId);
      if (!deleted) throw notFound('WEBHOOK_NOT_FOUND');
      return { deleted };
    },

    async SendTestEvent(req) {
      const endpoint = await endpointOf(req.clientId, req.endpointId);
      if (!isEventKind(req.event)) throw kindsError();
      const event = testEvent(req.event, { eventId: newId('evt'), clientId: req.clientId, mode: endpoint.mode }, new Date());
      const job = await deliveries.addDelivery(
        { eventId: event.event_id, clientId: req.clientId, mode: endpoint.mode, kind: event.event, data: JSON.stringify(event.data), traceparent: currentTraceparent() || null },
        { deliveryId: newId('dlv'), key: `endpoint:${endpoint.endpoint_id}`, url: endpoint.url, endpointId: endpoint.endpoint_id, secret: endpoint.secret },
        null,
      );
      enqueue(job);
      return { eventId: event.event_id, deliveryId: job.deliveryId };
    },

    async ReplayEvent(req) {
      const stored = req.eventId ? await deliveries.event(req.clientId, req.eventId) : undefined;
      if (!stored) throw notFound('EVENT_NOT_FOUND');
      const event = { eventId: req.eventId, clientId: req.clientId, mode: stored.mode, kind: stored.kind, data: stored.data, traceparent: stored.traceparent };
      const targets: { key: string; url: string; endpointId: string | null; secret: string | null; replayOf: string | null }[] = [];
      if (req.endpointId) {
        const endpoint = await endpointOf(req.clientId, req.endpointId);
        const first = stored.destinations.find((d) => d.endpoint_id === endpoint.endpoint_id);
        targets.push({ key: `endpoint:${endpoint.endpoint_id}`, url: endpoint.url, endpointId: endpoint.endpoint_id, secret: endpoint.secret, replayOf: first?.delivery_id ?? null });
      } else {
        for (const d of stored.destinations) {
          if (d.endpoint_id) {
            // An endpoint deleted since is skipped; one whose URL changed gets it at its new URL.
            const endpoint = await endpoints.get(req.clientId, d.endpoint_id);
            if (endpoint) targets.push({ key: d.destination, url: endpoint.url, endpointId: endpoint.endpoint_id, secret: endpoint.secret, replayOf: d.delivery_id });
          } else {
            targets.push({ key: d.destination, url: d.url, endpointId: null, secret: null, replayOf: d.delivery_id });
          }
        }
      }
      const jobs: DeliveryJob[] = [];
      for (const t of targets) {
        // A replay is a delivery of its own: `replay_of` names the first one (or the event, for an endpoint that never had it).
        jobs.push(await deliveries.addDelivery(event, { deliveryId: newId('dlv'), ...t }, t.replayOf ?? req.eventId));
      }
      for (const job of jobs) enqueue(job);
      const listed = await deliveries.list({ clientId: req.clientId, eventId: req.eventId, limit: 100 });
      const ids = new Set(jobs.map((j) => j.deliveryId));
      return { deliveries: listed.filter((d) => ids.has(d.delivery_id)).map(deliveryOut) };
    },

    async ListDeliveries(req) {
      if (req.limit < 0 || req.limit > 100) throw new AppError('INVALID_PAGINATION');
      const rows = await deliveries.list({
        clientId: req.clientId,
        eventId: req.eventId || undefined,
        endpointId: req.endpointId || undefined,
        before: req.before || undefined,
        limit: req.limit || 50,
      });
      return { deliveries: rows.map(deliveryOut) };
    },
  };
}
