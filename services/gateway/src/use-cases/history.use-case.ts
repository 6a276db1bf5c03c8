import { modeToProto } from '@smsgw/platform';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/** The history's filters, checked ('' when absent). */
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
  return up.messages.listMessages({ clientId: auth.clientId, mode: modeToProto(auth.mode), ...query });
}

export interface StatsQuery {
  fromDate: string;
  toDate: string;
  deviceId: string;
}

export async function statistics(up: Upstreams, auth: AuthContext, query: StatsQuery) {
  return up.messages.getStats({ clientId: auth.clientId, mode: modeToProto(auth.mode), ...query });
}
