import { AppError, modeToProto } from '@smsgw/platform';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/** The history's filters as the query gives them ('' when absent); the message service checks them. */
export interface HistoryQuery {
  page: number;
  limit: number;
  status: string;
  to: string;
  fromDate: string;
  toDate: string;
  deviceId: string;
  search: string;
}

export async function history(up: Upstreams, auth: AuthContext, query: HistoryQuery) {
  try {
    return await up.messages.listMessages({ clientId: auth.clientId, mode: modeToProto(auth.mode), ...query });
  } catch (err) {
    throw publicRefusal(err);
  }
}

/**
 * The message service's refusal as the public API names it: an unknown status is INVALID_STATUS
 * there (the service answers its other callers VALIDATION_ERROR naming `status`). Any other
 * refusal is the answer as it is.
 */
function publicRefusal(err: unknown): unknown {
  const unknownStatus =
    err instanceof AppError &&
    err.code === 'VALIDATION_ERROR' &&
    err.details?.some((d) => d.field === 'status' && d.code === 'INVALID_STATUS');
  return unknownStatus ? new AppError('INVALID_STATUS', { details: [{ field: 'status', code: 'INVALID_STATUS' }] }) : err;
}

export interface StatsQuery {
  fromDate: string;
  toDate: string;
  deviceId: string;
}

export async function statistics(up: Upstreams, auth: AuthContext, query: StatsQuery) {
  return up.messages.getStats({ clientId: auth.clientId, mode: modeToProto(auth.mode), ...query });
}
