import { AppError } from '@smsgw/platform';
import type { Mode } from '../domain/message-row';
import type { ReceivedRow } from '../data/received.repository';
import { totalPages } from '../domain/history';
import { RECEIVED_PREFIX, receivedRequest, type ReceivedRequest } from '../domain/received';
import type { MessageService } from './message-service';

/** One page of a client's received SMS in a mode, newest first, with the page counts (as listMessages). */
export async function listReceived(service: MessageService, clientId: string, mode: Mode, query: ReceivedRequest) {
  const { page, filter } = receivedRequest(query);
  const { rows, total } = await service.received.list(clientId, mode, filter, page);
  return { rows, page: page.page, perPage: page.limit, totalPages: totalPages(total, page.limit), totalItems: total };
}

/** One received SMS of a client, in a mode: RECEIVED_NOT_FOUND for any other (or not a `rcv_` id). */
export async function getReceived(service: MessageService, clientId: string, mode: Mode, id: string): Promise<ReceivedRow> {
  const row = id.startsWith(RECEIVED_PREFIX) ? await service.received.find(clientId, mode, id) : undefined;
  if (!row) throw new AppError('RECEIVED_NOT_FOUND');
  return row;
}
