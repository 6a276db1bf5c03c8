import { AppError, FixedWindowCounter, modeToProto, type Redis } from '@smsgw/platform';
import { type Mode, type Upstreams } from './upstreams';

/** The client's global endpoints, where its alert e-mails go, and whether its account is verified (endpoints are added only then). */
export async function listEndpoints(up: Upstreams, clientId: string) {
  const [{ endpoints }, client] = await Promise.all([up.webhooks.listEndpoints({ clientId }), up.accounts.getClient({ clientId })]);
  return { endpoints, alertEmail: client.email, accountVerified: client.accountVerified };
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
  return { endpointId: e.endpointId, url: e.url, events: e.events, secret: e.secret };
}

type TestEventDeps = { up: Upstreams; redis: Redis; limit: { maxPerAccount: number; windowMs: number } };

/**
 * Whether the account may send one more delivery of its own making (a test event, a replay): each
 * is a signed POST to a URL it chose, so they share one count per account. Counted before sending,
 * so that many sent at once cannot all pass.
 */
async function withinTestEventLimit(deps: TestEventDeps, clientId: string): Promise<boolean> {
  const { count } = await new FixedWindowCounter(deps.redis, { windowMs: deps.limit.windowMs }).count(`dashboard:test-events:${clientId}`);
  return count <= deps.limit.maxPerAccount;
}

/** A test event to an endpoint: its event id, or `throttled` when the account has sent `maxPerAccount` test events and replays in the window. */
export async function sendTestEvent(
  deps: TestEventDeps,
  clientId: string,
  endpointId: string,
  event: string,
): Promise<{ eventId: string } | 'throttled'> {
  if (!(await withinTestEventLimit(deps, clientId))) return 'throttled';
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

/** An event delivered again to the endpoint, under the same count as test events; `throttled` past it. */
export async function replayEvent(
  deps: TestEventDeps,
  clientId: string,
  endpointId: string,
  eventId: string,
): Promise<'replayed' | 'throttled'> {
  if (!(await withinTestEventLimit(deps, clientId))) return 'throttled';
  await deps.up.webhooks.replayEvent({ clientId, eventId, endpointId });
  return 'replayed';
}
