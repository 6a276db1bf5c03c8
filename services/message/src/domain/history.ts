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

/** `%`, `_` and the escape character itself are literal in a user's search. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function historyFilter(req: {
  status: string;
  to: string;
  fromDate: string;
  toDate: string;
  deviceId: string;
  search: string;
}): HistoryFilter {
  if (req.status && !MESSAGE_STATUSES.includes(req.status as MessageStatus)) {
    throw new AppError('VALIDATION_ERROR', {
      message: `Statut inconnu : valeurs possibles ${MESSAGE_STATUSES.join(', ')}.`,
      details: [{ field: 'status', code: 'INVALID_STATUS' }],
    });
  }
  if (req.search && [...req.search].length < SEARCH_MIN_LENGTH) {
    throw new AppError('VALIDATION_ERROR', {
      message: `La recherche (search) doit contenir au moins ${SEARCH_MIN_LENGTH} caractères.`,
      details: [{ field: 'search', code: 'SEARCH_TOO_SHORT' }],
    });
  }
  return {
    ...historyRange(req.fromDate, req.toDate),
    ...(req.status ? { status: req.status as MessageStatus } : {}),
    ...(req.to ? { to: req.to } : {}),
    ...(req.deviceId ? { deviceId: req.deviceId } : {}),
    ...(req.search ? { textPattern: containsPattern(req.search) } : {}),
  };
}

/** ceil(total / limit): 0 pages when there is nothing. */
export function totalPages(totalItems: number, limit: number): number {
  return Math.ceil(totalItems / limit);
}
