import { AppError, statsPeriod } from '@smsgw/platform';
import type { MessageRow, Mode } from '../domain/message-row';
import { historyRequest, totalPages, type HistoryRequest } from '../domain/history';
import { summarize, type StatsSummary } from '../domain/stats';
import type { MessageService } from './message-service';

/** One message of a client, in a mode. */
export async function getMessage(service: MessageService, clientId: string, messageId: string, mode: Mode): Promise<MessageRow> {
  const row = await service.messages.find(clientId, messageId, mode);
  if (!row) throw new AppError('MESSAGE_NOT_FOUND');
  return row;
}

/** How many live messages wait for each of these devices (0 for none), counted up to `upTo` each (0: exactly). */
/** How many messages each device's digests repaired, by kind (protocol 7). */
export async function deviceRepairs(
  service: MessageService,
  deviceIds: string[],
): Promise<Record<string, { reportApplied: number; sentCorrected: number; requeued: number }>> {
  const counts = await service.reconcile.countsOf(deviceIds);
  return Object.fromEntries(
    deviceIds.map((id) => {
      const c = counts.get(id) ?? {};
      return [id, { reportApplied: c.report_applied ?? 0, sentCorrected: c.sent_corrected ?? 0, requeued: c.requeued ?? 0 }];
    }),
  );
}

export async function queueDepths(service: MessageService, deviceIds: string[], upTo = 0): Promise<Record<string, number>> {
  const depths = await service.messages.queueDepths(deviceIds, Math.max(0, upTo));
  return Object.fromEntries(deviceIds.map((id) => [id, depths.get(id) ?? 0]));
}

/** One page of a client's history, newest first, with the page counts. */
export async function listMessages(service: MessageService, clientId: string, mode: Mode, query: HistoryRequest) {
  const { page, filter } = historyRequest(query);
  const { rows, total } = await service.history.list(clientId, mode, filter, page);
  return { rows, page: page.page, perPage: page.limit, totalPages: totalPages(total, page.limit), totalItems: total };
}

/** A client's statistics over a period (within the retention), optionally of one device. */
export async function getStats(
  service: MessageService,
  clientId: string,
  mode: Mode,
  query: { fromDate: string; toDate: string; deviceId: string },
): Promise<StatsSummary & { from: string; to: string }> {
  const period = statsPeriod(query.fromDate, query.toDate, new Date(), service.config.retention.days);
  const days = await service.history.dayCounts(clientId, mode, period, query.deviceId || undefined);
  return { from: period.from.toISOString(), to: new Date(period.until.getTime() - 1).toISOString(), ...summarize(days) };
}
