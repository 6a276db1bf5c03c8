import { AppError } from '@smsgw/platform';
import type { MessageRow, Mode } from '../domain/message-row';
import type { MessageService } from './message-service';

/**
 * Cancels a message still waiting for a phone, and its timer if it was
 * scheduled. Any other message: MESSAGE_NOT_CANCELLABLE with its status
 * (`dispatching` when a phone is taking it now).
 */
export async function cancelMessage(service: MessageService, clientId: string, messageId: string, mode: Mode): Promise<MessageRow> {
  const cancelled = await service.messages.cancel(clientId, messageId, mode);
  if (cancelled) {
    await service.scheduledSends?.cancel(cancelled);
    return cancelled;
  }
  const row = await service.messages.find(clientId, messageId, mode);
  if (!row) throw new AppError('MESSAGE_NOT_FOUND');
  throw new AppError('MESSAGE_NOT_CANCELLABLE', {
    details: [{ field: 'status', code: 'MESSAGE_NOT_CANCELLABLE', status: row.status, dispatching: row.status === 'queued' }],
  });
}
