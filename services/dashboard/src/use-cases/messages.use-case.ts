import { modeToProto } from '@smsgw/platform';
import { type Mode, type Upstreams } from './upstreams';

export interface MessageFilters {
  status: string;
  to: string;
  deviceId: string;
  search: string;
  fromDate: string;
  toDate: string;
}

/** One page of 25 messages of the client in `mode`, filtered. */
export async function listMessages(up: Upstreams, clientId: string, mode: Mode, page: number, filters: MessageFilters) {
  return up.messages.listMessages({ clientId, mode: modeToProto(mode), page, limit: 25, ...filters });
}

export async function getMessage(up: Upstreams, clientId: string, mode: Mode, messageId: string) {
  return up.messages.getMessage({ clientId, messageId, mode: modeToProto(mode) });
}

/** The statistics of the last `days` UTC days, today included. */
export async function statistics(up: Upstreams, clientId: string, mode: Mode, days: number) {
  const to = new Date();
  const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) - (days - 1) * 86_400_000);
  return up.messages.getStats({ clientId, mode: modeToProto(mode), fromDate: from.toISOString(), toDate: to.toISOString(), deviceId: '' });
}
