import { AppError, isStorableText, normalizePhoneNumber } from '@smsgw/platform';
import type { HistoryQuery, StatsQuery } from '../use-cases/history.use-case';
import type { InboxQuery } from '../use-cases/inbox.use-case';
import type { OptOutsQuery } from '../use-cases/opt-outs.use-case';
import type { GatewayContext } from './context';

/*
 * The query readers map a query string to the request of a gRPC call: the shape only. A number
 * parameter must be an integer (INVALID_PAGINATION naming it, before any call), a text one
 * storable (INVALID_CHARACTER), a phone number is put in its E.164 form by the platform's one
 * phone-number rule (INVALID_PHONE_NUMBER). The rules of the history and the inbox (page and limit
 * ranges, statuses, the search's bounds, dates) are the message service's (domain/history.ts,
 * domain/received.ts); its refusals are the answer.
 */

/** What the query readers use of a request: its query string (MCP's tools give theirs as one too). */
export type QuerySource = Pick<GatewayContext, 'query'>;

/** A query parameter; text Postgres cannot take (U+0000, a lone surrogate) is refused for every filter. */
function queryString(ctx: QuerySource, name: string): string | undefined {
  const value = ctx.query[name];
  if (typeof value !== 'string' || value === '') return undefined;
  if (!isStorableText(value)) throw new AppError('INVALID_CHARACTER', { details: [{ field: name, code: 'INVALID_CHARACTER' }] });
  return value;
}

// The shape of every message id (`msg_` and a ULID): anything else cannot exist.
const MESSAGE_ID = /^msg_[0-9A-Z]{26}$/;

/** The `message_id` path parameter; an id that cannot exist is not looked up. */
export function messageIdParam(ctx: Pick<GatewayContext, 'params'>): string {
  const id = ctx.params.message_id ?? '';
  if (!MESSAGE_ID.test(id)) throw new AppError('MESSAGE_NOT_FOUND');
  return id;
}

// The shape of every received SMS id (`rcv_` and a ULID, as messages).
const RECEIVED_ID = /^rcv_[0-9A-Z]{26}$/;

/** The `id` path parameter of the inbox; an id that cannot exist is not looked up. */
export function receivedIdParam(ctx: GatewayContext): string {
  const id = ctx.params.id ?? '';
  if (!RECEIVED_ID.test(id)) throw new AppError('RECEIVED_NOT_FOUND');
  return id;
}

/** A positive integer query parameter, or INVALID_PAGINATION. */
function pageNumber(ctx: QuerySource, name: string, fallback: number): number {
  const text = queryString(ctx, name);
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(text)) {
    throw new AppError('INVALID_PAGINATION', { details: [{ field: name, code: 'INVALID_PAGINATION' }] });
  }
  return Number(text);
}

/** GET /v1/sms/history's query, read in this order: page, limit, status, to, then the other filters. */
export function historyQuery(ctx: QuerySource): HistoryQuery {
  const page = pageNumber(ctx, 'page', 1);
  const limit = pageNumber(ctx, 'limit', 50);
  const status = queryString(ctx, 'status');
  const toFilter = queryString(ctx, 'to');
  const to = toFilter === undefined ? '' : normalizePhoneNumber(toFilter);
  if (to === undefined) throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'to', code: 'INVALID_PHONE_NUMBER' }] });
  return {
    page,
    limit,
    status: status ?? '',
    to,
    fromDate: queryString(ctx, 'from_date') ?? '',
    toDate: queryString(ctx, 'to_date') ?? '',
    deviceId: queryString(ctx, 'device_id') ?? '',
    search: queryString(ctx, 'search') ?? '',
  };
}

/**
 * GET /v1/sms/inbox's query, read as the history's: page, limit, then `from`. A sender given
 * with a `+` is a phone number, checked and normalized as the history's `to`; any other (a short
 * code, an alphanumeric sender name) is matched as given.
 */
export function inboxQuery(ctx: QuerySource): InboxQuery {
  const page = pageNumber(ctx, 'page', 1);
  const limit = pageNumber(ctx, 'limit', 50);
  const fromFilter = queryString(ctx, 'from')?.trim() ?? '';
  const from = fromFilter.startsWith('+') ? normalizePhoneNumber(fromFilter) : fromFilter;
  if (from === undefined) throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'from', code: 'INVALID_PHONE_NUMBER' }] });
  return {
    page,
    limit,
    from,
    fromDate: queryString(ctx, 'from_date') ?? '',
    toDate: queryString(ctx, 'to_date') ?? '',
    deviceId: queryString(ctx, 'device_id') ?? '',
    search: queryString(ctx, 'search') ?? '',
  };
}

/** GET /v1/opt-outs's query: page and limit, checked as the history's (the limit's range by the message service). */
export function optOutsQuery(ctx: GatewayContext): OptOutsQuery {
  return { page: pageNumber(ctx, 'page', 1), limit: pageNumber(ctx, 'limit', 50) };
}

/** A number of the suppression list, checked and normalised as a send's `to`: E.164, or 400 INVALID_PHONE_NUMBER naming `phone_number`. */
function optOutNumber(value: unknown): string {
  const number = normalizePhoneNumber(value);
  if (number === undefined) {
    throw new AppError('INVALID_PHONE_NUMBER', {
      details: [{ field: 'phone_number', code: 'INVALID_PHONE_NUMBER', message: new AppError('INVALID_PHONE_NUMBER').message }],
    });
  }
  return number;
}

/** POST /v1/opt-outs's body: `phone_number`. */
export function optOutNumberBody(body: Record<string, unknown>): string {
  return optOutNumber(body.phone_number);
}

/**
 * DELETE /v1/opt-outs/:phone_number's number, its `+` URL-encoded as %2B or left as is. Read from
 * the raw path: the router decodes parameters as a query string would (a literal `+` becomes a
 * space), but in a path `+` is itself (RFC 3986).
 */
export function optOutNumberParam(ctx: GatewayContext): string {
  const raw = ctx.path.slice(ctx.path.lastIndexOf('/') + 1);
  let value: string | undefined;
  try {
    value = decodeURIComponent(raw);
  } catch {
    value = undefined;
  }
  return optOutNumber(value);
}

/** GET /v1/sms/stats's query. */
export function statsQuery(ctx: GatewayContext): StatsQuery {
  return {
    fromDate: queryString(ctx, 'from_date') ?? '',
    toDate: queryString(ctx, 'to_date') ?? '',
    deviceId: queryString(ctx, 'device_id') ?? '',
  };
}

/** The `events` filter of GET /v1/events/listen (comma-separated kinds), as given. */
export function eventsQuery(ctx: GatewayContext): string | undefined {
  return queryString(ctx, 'events');
}
