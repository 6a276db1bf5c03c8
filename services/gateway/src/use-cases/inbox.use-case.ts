import { modeToProto } from '@smsgw/platform';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/** The inbox's filters as the query gives them ('' when absent; `from` in its E.164 form when a number); the message service checks them. */
export interface InboxQuery {
  page: number;
  limit: number;
  from: string;
  fromDate: string;
  toDate: string;
  deviceId: string;
  search: string;
}

/** The SMS the client's phones received, in the key's mode, newest first. */
export async function inbox(up: Upstreams, auth: AuthContext, query: InboxQuery) {
  return up.messages.listReceived({ clientId: auth.clientId, mode: modeToProto(auth.mode), ...query });
}

/** One received SMS of the client, in the key's mode (RECEIVED_NOT_FOUND otherwise). */
export async function receivedMessage(up: Upstreams, auth: AuthContext, id: string) {
  return up.messages.getReceived({ clientId: auth.clientId, mode: modeToProto(auth.mode), id });
}
