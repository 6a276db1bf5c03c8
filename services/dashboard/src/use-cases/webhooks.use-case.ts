import { AppError, FixedWindowCounter, modeToProto, type Redis } from '@smsgw/platform';
import { type Mode, type Upstreams } from './upstreams';

/** The client's global endpoints, and where its alert e-mails go. */
export async function listEndpoints(up: Upstreams, clientId: string) {
  const [{ endpoints }, client] = await Promise.all([up.webhooks.listEndpoints({ clientId }), up.accounts.getClient({ clientId })]);
  return { endpoints, alertEmail: client.email };
}

/** A new endpoint: its URL and its secret (shown once). */
export async function createEndpoint(up: Upstreams, clientId: string, form: { url: string; events: string[]; mode: Mode; batch: boolean }) {
  const e = await up.webhooks.createEndpoint({
    clientId,
    url: form.url,
    events: form.events,
    mode: modeToProto(form.mode),
    description: '',
    batch: form.batch,
  });
  return { url: e.url, secret: e.secret };
}

/** A test event to an endpoint: its event id, or `throttled` when the account has sent `maxPerAccount` in the window. */
export async function sendTestEvent(
  deps: { up: Upstreams; redis: Redis; limit: { maxPerAccount: number; windowMs: number } },
  clientId: string,
  endpointId: string,
  event: string,
): Promise<{ eventId: string } | 'throttled'> {
  // Counted before sending, so that events sent at once cannot all pass.
  const { count } = await new FixedWindowCounter(deps.redis, { windowMs: deps.limit.windowMs }).count(`dashboard:test-events:${clientId}`);
  if (count > deps.limit.maxPerAccount) return 'throttled';
  return { eventId: (await deps.up.webhooks.sendTestEvent({ clientId, endpointId, event })).eventId };
}

export async function setEndpointEnabled(up: Upstreams, clientId: string, endpointId: string, enabled: boolean): Promise<void> {
  await up.webhooks.updateEndpoint({
    clientId,
    endpointId,
    url: '',
    events: [],
    setEnabled: true,
    enabled,
    setDescription: false,
    description: '',
  });
}

/** Batches (up to 100 events in one POST, a JSON array) or one event a POST, from the next attempt on. */
export async function setEndpointBatch(up: Upstreams, clientId: string, endpointId: string, batch: boolean): Promise<void> {
  await up.webhooks.updateEndpoint({
    clientId,
    endpointId,
    url: '',
    events: [],
    setEnabled: false,
    enabled: false,
    setDescription: false,
    description: '',
    setBatch: true,
    batch,
  });
}

export async function deleteEndpoint(up: Upstreams, clientId: string, endpointId: string): Promise<void> {
  await up.webhooks.deleteEndpoint({ clientId, endpointId });
}

/** One endpoint of the client and its last 50 deliveries; NOT_FOUND when it is not the client's. */
export async function deliveryLog(up: Upstreams, clientId: string, endpointId: string) {
  const { endpoints } = await up.webhooks.listEndpoints({ clientId });
  const endpoint = endpoints.find((e) => e.endpointId === endpointId);
  if (!endpoint) throw new AppError('NOT_FOUND');
  const { deliveries } = await up.webhooks.listDeliveries({ clientId, endpointId, eventId: '', limit: 50, before: '' });
  return { endpoint, deliveries };
}

export async function replayEvent(up: Upstreams, clientId: string, endpointId: string, eventId: string): Promise<void> {
  await up.webhooks.replayEvent({ clientId, eventId, endpointId });
}
