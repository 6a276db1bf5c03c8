import { modeToProto } from '@smsgw/platform';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/** The page of the suppression list asked for, checked. */
export interface OptOutsQuery {
  page: number;
  limit: number;
}

/** The client's suppression list in the key's mode (a test key's list never touches live sends). */
export async function listOptOuts(up: Upstreams, auth: AuthContext, query: OptOutsQuery) {
  return up.messages.listOptOuts({ clientId: auth.clientId, mode: modeToProto(auth.mode), ...query });
}

/** Puts an E.164 number on the list, source "api"; a number already there keeps its first entry, which is answered. */
export async function addOptOut(up: Upstreams, auth: AuthContext, phoneNumber: string) {
  return up.messages.addOptOut({ clientId: auth.clientId, mode: modeToProto(auth.mode), phoneNumber, source: 'api' });
}

/** Takes an E.164 number off the list (OPT_OUT_NOT_FOUND when it is not on it). */
export async function removeOptOut(up: Upstreams, auth: AuthContext, phoneNumber: string) {
  return up.messages.removeOptOut({ clientId: auth.clientId, mode: modeToProto(auth.mode), phoneNumber });
}
