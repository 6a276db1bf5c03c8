import { modeToProto } from '@smsgw/platform';
import { MESSAGE_STATE, stateOfStatus } from '../domain/receipt';
import { absoluteSmppTime } from '../domain/smpp-time';
import type { Upstreams } from '../grpc-clients/upstreams';
import type { Binding } from './bind.use-case';

/** query_sm: the message's state and, once final, when it ended (MESSAGE_NOT_FOUND for another client's). */
export async function queryMessage(up: Pick<Upstreams, 'messages'>, binding: Binding, messageId: string) {
  const m = await up.messages.getMessage({ clientId: binding.clientId, messageId, mode: modeToProto(binding.mode) });
  const state = stateOfStatus(m.status, m.errorCode);
  const ended = m.deliveredAt || m.failedAt || m.cancelledAt;
  return {
    messageId: m.messageId,
    finalDate: ended ? absoluteSmppTime(new Date(ended)) : '',
    messageState: MESSAGE_STATE[state],
    errorCode: 0,
  };
}

/** cancel_sm: cancels a message still waiting (MESSAGE_NOT_CANCELLABLE once it left). */
export async function cancelMessage(up: Pick<Upstreams, 'messages'>, binding: Binding, messageId: string): Promise<void> {
  await up.messages.cancelMessage({ clientId: binding.clientId, messageId, mode: modeToProto(binding.mode) });
}
