import { AUDIT_ACTIONS } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { Upstreams } from './upstreams';

/** The actions done through other services, which the dashboard records after they succeed. */
export type RecordedAction =
  | 'secret.shown'
  | 'secret.rotated'
  | 'phone.added'
  | 'phone.credentials_rotated'
  | 'phone.revoked'
  | 'phone.removed'
  | 'webhook.created'
  | 'webhook.changed'
  | 'webhook.deleted'
  | 'settings.changed';

/**
 * Records in the account's audit log an action the signed-in member just did through another
 * service (a phone, a webhook endpoint, a setting, the signing secret): who, from where, what.
 */
export async function recordAction(
  up: Upstreams,
  by: { userId: string; clientId: string; address?: string },
  action: RecordedAction,
  target: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  await up.accounts.recordAuditEvent({
    clientId: by.clientId,
    userId: by.userId,
    actorAddress: by.address ?? '',
    action,
    target,
    detailsJson: JSON.stringify(details),
  });
}

/** The page's filters as the address gives them, kept only when well formed. */
export interface AuditFilter {
  action?: string;
  /** The actor's e-mail (or "operator"). */
  actor?: string;
  /** Whole UTC days, `YYYY-MM-DD`, both included. */
  from?: string;
  to?: string;
  /** The next page: events older than this one. */
  before?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function auditFilter(query: Record<string, unknown>): AuditFilter {
  const text = (name: string) => (typeof query[name] === 'string' ? query[name] : '');
  const action = text('action');
  const day = (name: string) => (DAY.test(text(name)) && !Number.isNaN(Date.parse(`${text(name)}T00:00:00Z`)) ? text(name) : undefined);
  return {
    action: (AUDIT_ACTIONS as readonly string[]).includes(action) ? action : undefined,
    actor: text('actor').trim().slice(0, 254) || undefined,
    from: day('from'),
    to: day('to'),
    before: /^\d{1,18}$/.test(text('before')) ? text('before') : undefined,
  };
}

function request(clientId: string, filter: AuditFilter, limit: number, before?: string): account.ListAuditEventsRequest {
  const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString();
  return {
    clientId,
    action: filter.action ?? '',
    actor: filter.actor ?? '',
    from: filter.from ? `${filter.from}T00:00:00.000Z` : '',
    to: filter.to ? nextDay(filter.to) : '',
    limit,
    beforeEventId: before ?? filter.before ?? '0',
  };
}

export const AUDIT_PAGE = 50;

/** One page of the log, newest first, and whether older events follow. */
export async function auditPage(up: Upstreams, clientId: string, filter: AuditFilter) {
  const { events } = await up.accounts.listAuditEvents(request(clientId, filter, AUDIT_PAGE + 1));
  return { events: events.slice(0, AUDIT_PAGE), older: events.length > AUDIT_PAGE ? events[AUDIT_PAGE - 1]!.eventId : undefined };
}

/** Every event the filters select (the log keeps a year), 1000 a call. */
export async function auditEvents(up: Upstreams, clientId: string, filter: AuditFilter): Promise<account.AuditEvent__Output[]> {
  const all: account.AuditEvent__Output[] = [];
  let before: string | undefined;
  for (;;) {
    const { events } = await up.accounts.listAuditEvents(
      request(clientId, { ...filter, before: undefined }, 1000, before ?? filter.before),
    );
    all.push(...events);
    if (events.length < 1000) return all;
    before = events[events.length - 1]!.eventId;
  }
}

/** A CSV field: quoted when it must be; a leading formula character is neutralised for spreadsheets. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The log as CSV (RFC 4180, CRLF): time, actor, address, action, target, details. */
export function auditCsv(events: account.AuditEvent__Output[]): string {
  const rows = [['at', 'actor', 'address', 'action', 'target', 'details']];
  for (const e of events) rows.push([e.at, e.actor, e.address, e.action, e.target, e.detailsJson]);
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
