import { AppError, FAILURE_MESSAGES } from '@smsgw/platform';
import type { MessageRow, Mode, NewMessage } from '../domain/message-row';
import { recipientKey, type OptOutRow, type Recipient } from '../data/opt-out.repository';
import { pageOf, totalPages } from '../domain/history';
import { ADDABLE_SOURCES, validateSettings, type OptOutSettings, type OptOutSource } from '../domain/opt-out';
import type { MessageService } from './message-service';

/**
 * Marks the messages whose number is on their client's list in their mode
 * (`optedOut`): one lookup for all the numbers of the statement to come.
 */
export async function markOptedOut(service: MessageService, messages: NewMessage[]): Promise<void> {
  const listed = await service.optOuts.listed(messages);
  for (const m of messages) m.optedOut = listed.has(recipientKey(m));
}

/** Publishes the `sms.failed` of messages stored opted out, before their commit (durably, as the expiry does). */
export const publishFailed =
  (service: Pick<MessageService, 'events' | 'log'>) =>
  async (rows: MessageRow[]): Promise<void> => {
    await Promise.all(rows.map((row) => service.events.publish(row)));
    service.log.info({ failed: rows.length }, 'sends to opted-out numbers failed');
  };

/**
 * A number just joined its client's list (AddOptOut, or a received opt-out
 * keyword): the messages to it no phone has taken fail (OPTED_OUT) with
 * their `sms.failed`, OTPs aside when the client's OTPs ignore the list.
 * Returns how many.
 */
export async function failPendingTo(service: Pick<MessageService, 'optOuts' | 'events' | 'log'>, r: Recipient): Promise<number> {
  return (await service.optOuts.failPending(r, FAILURE_MESSAGES.OPTED_OUT, publishFailed(service))).length;
}

const phoneNumber = (value: string): string => {
  // The caller checked it is E.164; this only keeps what cannot be a number out of the list.
  if (!/^\+[1-9][0-9]{5,14}$/.test(value))
    throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'phone_number', code: 'INVALID_PHONE_NUMBER' }] });
  return value;
};

/** One page of the client's list in a mode, newest first. */
export async function listOptOuts(service: MessageService, clientId: string, mode: Mode, query: { page: number; limit: number }) {
  const page = pageOf(query.page, query.limit);
  const { rows, total } = await service.optOuts.list(clientId, mode, page);
  return { rows, page: page.page, perPage: page.limit, totalPages: totalPages(total, page.limit), totalItems: total };
}

/**
 * Adds a number (source "api" or "dashboard"); on the list already: its
 * first entry. The client's messages to it that no phone has taken fail.
 */
export async function addOptOut(
  service: MessageService,
  req: { clientId: string; mode: Mode; phoneNumber: string; source: string },
): Promise<OptOutRow> {
  if (!ADDABLE_SOURCES.includes(req.source as OptOutSource))
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'source', code: 'VALIDATION_ERROR' }] });
  const entry = await service.optOuts.add({ ...req, phoneNumber: phoneNumber(req.phoneNumber), source: req.source as OptOutSource });
  await failPendingTo(service, { clientId: entry.client_id, mode: entry.mode, to: entry.phone_number });
  return entry;
}

/** Removes a number: OPT_OUT_NOT_FOUND when it is not on the list. */
export async function removeOptOut(service: MessageService, req: { clientId: string; mode: Mode; phoneNumber: string }): Promise<void> {
  if (!(await service.optOuts.remove(req.clientId, req.mode, req.phoneNumber))) throw new AppError('OPT_OUT_NOT_FOUND');
}

export async function getOptOutSettings(service: MessageService, clientId: string): Promise<OptOutSettings> {
  return service.optOuts.settings(clientId);
}

/** Replaces them all, validated (VALIDATION_ERROR, a detail per field) and normalised; returns what is stored. */
export async function setOptOutSettings(service: MessageService, clientId: string, input: OptOutSettings): Promise<OptOutSettings> {
  const settings = validateSettings(input);
  await service.optOuts.saveSettings(clientId, settings);
  return settings;
}
