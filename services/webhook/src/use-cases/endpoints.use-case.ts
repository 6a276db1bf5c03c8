import { randomBytes } from 'node:crypto';
import { AppError, newId } from '@smsgw/platform';
import type { EndpointRow, Mode } from '../data/endpoint.repository';
import { EVENT_KINDS, parseKinds } from '../domain/event-kinds';
import type { WebhookService } from './webhook-service';

const urlError = (reason: string) =>
  new AppError('INVALID_WEBHOOK_URL', { details: [{ field: 'url', code: 'INVALID_WEBHOOK_URL', message: reason }] });
// The public API has no webhook routes: these use the catalogue's generic codes, with the precise one in `details`.
export const kindsError = () =>
  new AppError('VALIDATION_ERROR', {
    details: [
      {
        field: 'events',
        code: 'INVALID_WEBHOOK_EVENTS',
        message: `one or more of ${EVENT_KINDS.join(', ')}`,
      },
    ],
  });
export const notFound = (what: 'WEBHOOK_NOT_FOUND' | 'EVENT_NOT_FOUND') => new AppError('NOT_FOUND', { details: [{ code: what }] });

/** A known client whose owner confirmed the account's address: endpoints wait for it (ACCOUNT_NOT_VERIFIED). */
async function verifiedClient({ accounts }: WebhookService, clientId: string): Promise<void> {
  if (!clientId) throw new AppError('INVALID_CLIENT_ID');
  if (!(await accounts.getClient({ clientId })).accountVerified) throw new AppError('ACCOUNT_NOT_VERIFIED');
}

/** An endpoint of the client, or WEBHOOK_NOT_FOUND. */
export async function endpointOf({ endpoints }: WebhookService, clientId: string, endpointId: string): Promise<EndpointRow> {
  const found = endpointId ? await endpoints.get(clientId, endpointId) : undefined;
  if (!found) throw notFound('WEBHOOK_NOT_FOUND');
  return found;
}

async function allowedUrl({ checkUrl }: WebhookService, url: string): Promise<string> {
  const refused = await checkUrl(url);
  if (refused) throw urlError(refused);
  return url;
}

/**
 * A new endpoint of a known client whose account is verified, its URL checked, within the
 * client's cap (LIMIT_REACHED past it); its secret is shown once.
 */
export async function createEndpoint(
  service: WebhookService,
  req: { clientId: string; mode: Mode; url: string; events: string[]; description: string; batch: boolean },
): Promise<{ endpoint: EndpointRow; secret: string }> {
  await verifiedClient(service, req.clientId);
  const kinds = parseKinds(req.events);
  if (!kinds) throw kindsError();
  const url = await allowedUrl(service, req.url);
  // The secret is shown once; `whsec_` tells a reader what it is, as in Stripe's.
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  const max = service.maxEndpointsPerClient;
  const endpoint = await service.endpoints.insert(
    {
      endpointId: newId('whe'),
      clientId: req.clientId,
      mode: req.mode,
      url,
      events: kinds,
      secret,
      description: req.description.slice(0, 500),
      batch: req.batch,
    },
    max,
  );
  if (!endpoint) {
    throw new AppError('LIMIT_REACHED', {
      message: `Un compte peut avoir ${max} points de terminaison de webhook au plus : supprimez-en un avant d'en ajouter un autre.`,
    });
  }
  return { endpoint, secret };
}

export function listEndpoints(service: WebhookService, clientId: string): Promise<EndpointRow[]> {
  return service.endpoints.list(clientId);
}

/** Changes what is given (an empty URL or event list changes nothing), the URL checked again. Pending deliveries take the new batch form at their next attempt. */
export async function updateEndpoint(
  service: WebhookService,
  req: { clientId: string; endpointId: string; url: string; events: string[]; enabled?: boolean; description?: string; batch?: boolean },
): Promise<EndpointRow> {
  await endpointOf(service, req.clientId, req.endpointId);
  let kinds: string[] | undefined;
  if (req.events.length > 0) {
    kinds = parseKinds(req.events);
    if (!kinds) throw kindsError();
  }
  const updated = await service.endpoints.update(req.clientId, req.endpointId, {
    url: req.url ? await allowedUrl(service, req.url) : undefined,
    events: kinds,
    enabled: req.enabled,
    description: req.description?.slice(0, 500),
    batch: req.batch,
  });
  if (!updated) throw notFound('WEBHOOK_NOT_FOUND');
  return updated;
}

export async function deleteEndpoint(service: WebhookService, clientId: string, endpointId: string): Promise<boolean> {
  const deleted = await service.endpoints.delete(clientId, endpointId);
  if (!deleted) throw notFound('WEBHOOK_NOT_FOUND');
  return deleted;
}
