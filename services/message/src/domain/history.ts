import { AppError, historyRange, type CreatedRange } from '@smsgw/platform';
import { MESSAGE_STATUSES, type MessageStatus } from './message-status';

export const MAX_PAGE_SIZE = 100;

export interface Page {
  page: number;
  limit: number;
  offset: number;
}

/**
 * `page` from 1, `limit` from 1 to 100. The caller sends the defaults (1 and
 * 50) for absent parameters: in proto3 an absent number reads as 0, and 0
 * must stay an error (no silent correction of a bad page).
 */
export function pageOf(page: number, limit: number): Page {
  const details = [];
  if (!Number.isInteger(page) || page < 1) details.push({ field: 'page', code: 'INVALID_PAGINATION' });
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) details.push({ field: 'limit', code: 'INVALID_PAGINATION' });
  if (details.length > 0) throw new AppError('INVALID_PAGINATION', { details });
  // Far pages past int4 offsets cannot hold rows anyway.
  return { page, limit, offset: Math.min((page - 1) * limit, 2 ** 31 - 1) };
}

export interface HistoryFilter extends CreatedRange {
  status?: MessageStatus;
  to?: string;
  deviceId?: string;
  /** LIKE pattern matching the text anywhere, the user's wildcards escaped. */
  textPattern?: string;
}

/**
 * A search gives its 1,000 newest matches (as GitHub's search API does), and
 * `total_items` counts them exactly. Counting every match of a common word
 * over a client's whole history read and rechecked hundreds of thousands of
 * rows (one to two seconds at a million messages); a date range, a status or
 * a device reaches older matches.
 */
export const SEARCH_MAX_RESULTS = 1_000;

/** Shorter terms have no trigram: nothing but reading every message could find them. */
export const SEARCH_MIN_LENGTH = 3;

/** The longest search taken: a longer one is cut to its first 200 characters. */
export const SEARCH_MAX_LENGTH = 200;

/**
 * The search as taken: at most SEARCH_MAX_LENGTH characters, cut between code points (a cut
 * pair would be a lone surrogate), and at least SEARCH_MIN_LENGTH (VALIDATION_ERROR naming
 * `search`, SEARCH_TOO_SHORT); '' when none. The history's and the inbox's rule.
 */
export function searchTerm(search: string): string {
  const term = Array.from(search).slice(0, SEARCH_MAX_LENGTH);
  if (term.length > 0 && term.length < SEARCH_MIN_LENGTH) {
    throw new AppError('VALIDATION_ERROR', {
      message: `La recherche (search) doit contenir au moins ${SEARCH_MIN_LENGTH} caractères.`,
      details: [{ field: 'search', code: 'SEARCH_TOO_SHORT' }],
    });
  }
  return term.join('');
}

/** `%`, `_` and the escape character itself are literal in a user's search. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A history request as the gateway and the dashboard send it ('' or 0 when a field is absent). */
export interface HistoryRequest {
  page: number;
  limit: number;
  status: string;
  to: string;
  fromDate: string;
  toDate: string;
  deviceId: string;
  search: string;
}

/**
 * The history's rules, whoever asks: a known status (VALIDATION_ERROR naming `status`, detail
 * INVALID_STATUS; the public API names it INVALID_STATUS), the page and limit (`pageOf`), the
 * search (`searchTerm`), then the dates (`historyRange`: ISO 8601, from before to). Checked in
 * that order: the first failing rule is the answer. The edges only read the query string into
 * the request (integers, storable text, a number in its E.164 form).
 */
export function historyRequest(req: HistoryRequest): { page: Page; filter: HistoryFilter } {
  if (req.status && !MESSAGE_STATUSES.includes(req.status as MessageStatus)) {
    throw new AppError('VALIDATION_ERROR', {
      message: `Statut inconnu : valeurs possibles ${MESSAGE_STATUSES.join(', ')}.`,
      details: [{ field: 'status', code: 'INVALID_STATUS' }],
    });
  }
  const page = pageOf(req.page, req.limit);
  const search = searchTerm(req.search);
  const filter: HistoryFilter = {
    ...historyRange(req.fromDate, req.toDate),
    ...(req.status ? { status: req.status as MessageStatus } : {}),
    ...(req.to ? { to: req.to } : {}),
    ...(req.deviceId ? { deviceId: req.deviceId } : {}),
    ...(search ? { textPattern: containsPattern(search) } : {}),
  };
  return { page, filter };
}

/** ceil(total / limit): 0 pages when there is nothing. */
export function totalPages(totalItems: number, limit: number): number {
  return Math.ceil(totalItems / limit);
}
