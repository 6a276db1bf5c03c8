import { AppError, currentTraceparent, newId } from '@smsgw/platform';
import type { DeliveryRow } from '../data/delivery-log.repository';
import type { DeliveryJob } from '../data/delivery.repository';
import { isEventKind } from '../domain/event-kinds';
import { testEvent } from '../domain/test-event';
import { endpointOf, kindsError, notFound } from './endpoints.use-case';
import type { WebhookService } from './webhook-service';

/** A sample event of `kind` to one endpoint, delivered at once like any other. */
export async function sendTestEvent(
  service: WebhookService,
  clientId: string,
  endpointId: string,
  kind: string,
): Promise<{ eventId: string; deliveryId: string }> {
  const endpoint = await endpointOf(service, clientId, endpointId);
  if (!isEventKind(kind)) throw kindsError();
  const event = testEvent(kind, { eventId: newId('evt'), clientId, mode: endpoint.mode }, new Date());
  const job = await service.deliveries.addDelivery(
    {
      eventId: event.event_id,
      clientId,
      mode: endpoint.mode,
      kind: event.event,
      data: JSON.stringify(event.data),
      traceparent: currentTraceparent() || null,
    },
    {
      deliveryId: newId('dlv'),
      key: `endpoint:${endpoint.endpoint_id}`,
      url: endpoint.url,
      endpointId: endpoint.endpoint_id,
      secret: endpoint.secret,
      batch: endpoint.batch,
    },
    null,
  );
  service.enqueue(job);
  return { eventId: event.event_id, deliveryId: job.deliveryId };
}

/**
 * Delivers a stored event again: to one endpoint, or to every destination
 * it first went to (an endpoint deleted since is skipped). Answers the new
 * deliveries, as the delivery log shows them.
 */
export async function replayEvent(service: WebhookService, clientId: string, eventId: string, endpointId: string): Promise<DeliveryRow[]> {
  const stored = eventId ? await service.deliveryLog.event(clientId, eventId) : undefined;
  if (!stored) throw notFound('EVENT_NOT_FOUND');
  const event = { eventId, clientId, mode: stored.mode, kind: stored.kind, data: stored.data, traceparent: stored.traceparent };
  const targets: { key: string; url: string; endpointId: string | null; secret: string | null; batch: boolean; replayOf: string | null }[] =
    [];
  if (endpointId) {
    const endpoint = await endpointOf(service, clientId, endpointId);
    const first = stored.destinations.find((d) => d.endpoint_id === endpoint.endpoint_id);
    targets.push({
      key: `endpoint:${endpoint.endpoint_id}`,
      url: endpoint.url,
      endpointId: endpoint.endpoint_id,
      secret: endpoint.secret,
      batch: endpoint.batch,
      replayOf: first?.delivery_id ?? null,
    });
  } else {
    for (const d of stored.destinations) {
      if (d.endpoint_id) {
        // An endpoint deleted since is skipped; one whose URL changed gets it at its new URL.
        const endpoint = await service.endpoints.get(clientId, d.endpoint_id);
        if (endpoint)
          targets.push({
            key: d.destination,
            url: endpoint.url,
            endpointId: endpoint.endpoint_id,
            secret: endpoint.secret,
            batch: endpoint.batch,
            replayOf: d.delivery_id,
          });
      } else {
        targets.push({ key: d.destination, url: d.url, endpointId: null, secret: null, batch: false, replayOf: d.delivery_id });
      }
    }
  }
  const jobs: DeliveryJob[] = [];
  for (const t of targets) {
    // A replay is a delivery of its own: `replay_of` names the first one (or the event, for an endpoint that never had it).
    jobs.push(await service.deliveries.addDelivery(event, { deliveryId: newId('dlv'), ...t }, t.replayOf ?? eventId));
  }
  for (const job of jobs) service.enqueue(job);
  const listed = await service.deliveryLog.list({ clientId, eventId, limit: 100 });
  const ids = new Set(jobs.map((j) => j.deliveryId));
  return listed.filter((d) => ids.has(d.delivery_id));
}

/** A page of the client's delivery log, newest first (50 by default, at most 100). */
export async function listDeliveries(
  service: WebhookService,
  req: { clientId: string; eventId: string; endpointId: string; before: string; limit: number },
): Promise<DeliveryRow[]> {
  if (req.limit < 0 || req.limit > 100) throw new AppError('INVALID_PAGINATION');
  return service.deliveryLog.list({
    clientId: req.clientId,
    eventId: req.eventId || undefined,
    endpointId: req.endpointId || undefined,
    before: req.before || undefined,
    limit: req.limit || 50,
  });
}
