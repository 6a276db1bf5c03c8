import { modeToProto } from '@smsgw/platform';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/** One message of the client, in the key's mode. */
export async function messageStatus(up: Upstreams, auth: AuthContext, messageId: string) {
  return up.messages.getMessage({ clientId: auth.clientId, messageId, mode: modeToProto(auth.mode) });
}

/** Cancels a message not sent yet; MESSAGE_NOT_CANCELLABLE once it left. */
export async function cancelMessage(up: Upstreams, auth: AuthContext, messageId: string) {
  return up.messages.cancelMessage({ clientId: auth.clientId, messageId, mode: modeToProto(auth.mode) });
}
