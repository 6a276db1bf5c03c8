import { modeFromProto, type Callers } from '@smsgw/platform';
import type { AsyncHandlers } from '@smsgw/platform';
import type { webhook } from '@smsgw/proto';
import { listDeliveries, replayEvent, sendTestEvent } from '../use-cases/deliveries.use-case';
import { createEndpoint, deleteEndpoint, listEndpoints, updateEndpoint } from '../use-cases/endpoints.use-case';
import type { WebhookService } from '../use-cases/webhook-service';
import { deliveryOut, endpointOut } from './webhook.mapper';

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const webhookCallers: Callers<webhook.WebhookServiceHandlers> = {
  CreateEndpoint: ['dashboard', 'admin'],
  ListEndpoints: ['dashboard', 'admin'],
  UpdateEndpoint: ['dashboard'],
  DeleteEndpoint: ['dashboard', 'admin'],
  SendTestEvent: ['dashboard', 'admin'],
  ReplayEvent: ['dashboard', 'admin'],
  ListDeliveries: ['dashboard', 'admin'],
};

/** Endpoints, test events, replays and the delivery log over gRPC (the dashboard and the operator command line): each method reads its request, runs one use case, maps the answer. */
export function webhookHandlers(service: WebhookService): AsyncHandlers<webhook.WebhookServiceHandlers> {
  return {
    async CreateEndpoint(req) {
      const { endpoint, secret } = await createEndpoint(service, { ...req, mode: modeFromProto(req.mode) });
      return endpointOut(endpoint, secret);
    },

    async ListEndpoints(req) {
      return { endpoints: (await listEndpoints(service, req.clientId)).map((e) => endpointOut(e)) };
    },

    async UpdateEndpoint(req) {
      const updated = await updateEndpoint(service, {
        clientId: req.clientId,
        endpointId: req.endpointId,
        url: req.url,
        events: req.events,
        enabled: req.setEnabled ? req.enabled : undefined,
        description: req.setDescription ? req.description : undefined,
        batch: req.setBatch ? req.batch : undefined,
      });
      return endpointOut(updated);
    },

    async DeleteEndpoint(req) {
      return { deleted: await deleteEndpoint(service, req.clientId, req.endpointId) };
    },

    async SendTestEvent(req) {
      return sendTestEvent(service, req.clientId, req.endpointId, req.event);
    },

    async ReplayEvent(req) {
      return { deliveries: (await replayEvent(service, req.clientId, req.eventId, req.endpointId)).map(deliveryOut) };
    },

    async ListDeliveries(req) {
      return { deliveries: (await listDeliveries(service, req)).map(deliveryOut) };
    },
  };
}
