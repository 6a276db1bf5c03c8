import { AppError, activeSpan, endSpan, newId, startSpanInTrace, withSpan, type AsyncHandlers, type Logger, type Nats } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { MessageConfig } from '../config';
import type { HistoryRepository } from '../data/history.repository';
import type { MessageRepository, MessageRow, Mode, NewMessage, PlacedMessage } from '../data/message.repository';
import { historyFilter, pageOf, totalPages } from '../domain/history';
import type { ScheduledSends } from '../events/scheduled-sends';
import { statsPeriod } from '../domain/period';
import { measureSms } from '../domain/sms-encoding';
import { summarize } from '../domain/stats';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : '');

/** About a century: the cutoff stays a date Postgres can compute. */
const MAX_RETENTION_DAYS = 36_500;

function modeOf(mode: string): Mode {
  return mode === 'MODE_TEST' ? 'test' : 'live';
}

export function toProto(row: MessageRow): message.Message {
  return {
    messageId: row.message_id,
    clientId: row.client_id,
    deviceId: row.device_id,
    batchId: row.batch_id ?? '',
    mode: row.mode === 'test' ? 'MODE_TEST' : 'MODE_LIVE',
    status: row.status,
    to: row.to_number,
    text: row.body,
    priority: row.priority,
    metadataJson: row.metadata ? JSON.stringify(row.metadata) : '',
    webhookUrl: row.webhook_url ?? '',
    parts: row.parts,
    encoding: row.encoding,
    createdAt: iso(row.created_at),
    queuedAt: iso(row.queued_at),
    scheduledAt: iso(row.scheduled_at),
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
    failedAt: iso(row.failed_at),
    cancelledAt: iso(row.cancelled_at),
    errorCode: row.error_code ?? '',
    errorMessage: row.error_message ?? '',
  };
}

function parseMetadata(json: string): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const value: unknown = JSON.parse(json);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new AppError('METADATA_TOO_LARGE', { details: [{ field: 'metadata', code: 'METADATA_TOO_LARGE' }] });
}

/** What became of one send: stored (its row and delivery estimate) or refused. */
interface SendOutcome {
  row?: MessageRow;
  estimatedDelivery?: string;
  error?: AppError;
}

export function messageHandlers(
  repo: MessageRepository,
  nats: Nats,
  config: Pick<MessageConfig, 'pacing' | 'retention'>,
  history: HistoryRepository,
  log: Logger,
  scheduledSends?: ScheduledSends,
): AsyncHandlers<message.MessageServiceHandlers> {
  const averagePacingMs = (config.pacing.minMs + config.pacing.maxMs) / 2;

  function outgoing(req: { clientId: string; mode: string; priority: number; webhookUrl: string }, deviceId: string, m: message.OutgoingMessage__Output, scheduledAt: Date | null, batchId: string | null): NewMessage {
    if (!deviceId) throw new AppError('INVALID_DEVICE_ID');
    if (!m.text) throw new AppError('MESSAGE_REQUIRED');
    const size = measureSms(m.text);
    return {
      messageId: newId('msg'),
      clientId: req.clientId,
      mode: modeOf(req.mode),
      deviceId,
      batchId,
      to: m.to,
      text: m.text,
      priority: req.priority || 3,
      metadata: parseMetadata(m.metadataJson),
      webhookUrl: req.webhookUrl || null,
      parts: size.parts,
      encoding: size.encoding,
      scheduledAt,
    };
  }

  /**
   * Hints that due messages wait: to the hub holding each phone that had
   * nothing to claim (a busy phone's hub claims again by itself, and a
   * periodic sweep covers a lost hint), or to the simulated device of test keys.
   */
  function wake(placed: PlacedMessage[]): void {
    const now = new Date();
    const due = placed.filter(({ row }) => !row.scheduled_at || row.scheduled_at <= now);
    for (const deviceId of new Set(due.filter((p) => p.row.mode === 'live' && p.deviceWasIdle).map((p) => p.row.device_id))) {
      nats.nc.publish(nats.names.wake(deviceId));
    }
    if (due.some((p) => p.row.mode === 'test')) nats.nc.publish(nats.names.testWake);
  }

  /**
   * Stores independent sends in one statement (one transaction, one WAL
   * flush), wakes their devices, and estimates each one's delivery. An item
   * refused here fails alone; a database failure fails them all, none stored.
   * Each item's work is recorded in the trace of the API request it came
   * from (`traceparent`), linked to the span of the call that carried it.
   */
  async function sendMany(items: message.SendManyItem__Output[]): Promise<SendOutcome[]> {
    const call = activeSpan()?.spanContext();
    const spans = items.map((item) => startSpanInTrace('message.queue', item.traceparent, call ? [call] : []));
    const results: SendOutcome[] = new Array(items.length);
    const accepted: { index: number; message: NewMessage }[] = [];
    items.forEach(({ request }, index) => {
      try {
        if (!request?.message) throw new AppError('MESSAGE_REQUIRED');
        const scheduledAt = request.scheduledAt ? new Date(request.scheduledAt) : null;
        accepted.push({ index, message: outgoing(request, request.deviceId, request.message, scheduledAt, null) });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        results[index] = { error: err };
      }
    });
    try {
      if (accepted.length > 0) {
        const placed = await repo.insertPlaced(accepted.map((a) => a.message));
        wake(placed);
        // After the commit: a scheduled message is answered once its timer exists.
        await scheduledSends?.schedule(placed.map((p) => p.row));
        placed.forEach(({ row, ahead }, k) => {
          const index = accepted[k]!.index;
          const start = Math.max(Date.now(), row.due_at.getTime());
          results[index] = { row, estimatedDelivery: new Date(start + ahead * averagePacingMs).toISOString() };
          withSpan(spans[index]!, () => log.debug({ message_id: row.message_id, device_id: row.device_id, gathered: items.length }, 'message queued'));
        });
      }
    } catch (err) {
      for (const span of spans) endSpan(span, err instanceof AppError ? err.code : 'INTERNAL_ERROR');
      throw err;
    }
    spans.forEach((span, i) => {
      span.setAttribute('smsgw.send.gathered', items.length);
      const row = results[i]!.row;
      if (row) span.setAttribute('smsgw.message_id', row.message_id);
      endSpan(span, results[i]!.error?.code);
    });
    return results;
  }

  return {
    async Send(req) {
      const [result] = await sendMany([{ request: req, traceparent: '' }]);
      if (result!.error) throw result!.error;
      return { message: toProto(result!.row!), estimatedDelivery: result!.estimatedDelivery! };
    },

    async SendMany(req) {
      const results = await sendMany(req.items);
      return {
        results: results.map(({ row, estimatedDelivery, error }) =>
          error
            ? { errorCode: error.code, errorMessage: error.message }
            : {
                receipt: {
                  messageId: row!.message_id,
                  status: row!.status,
                  parts: row!.parts,
                  encoding: row!.encoding,
                  queuedAt: iso(row!.queued_at),
                  scheduledAt: iso(row!.scheduled_at),
                  estimatedDelivery,
                },
              },
        ),
      };
    },

    async SendBatch(req) {
      if (req.messages.length === 0) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'messages', code: 'MESSAGE_REQUIRED' }] });
      if (req.deviceIds.length !== req.messages.length) throw new AppError('INVALID_DEVICE_ID');
      const batchId = newId('batch');
      const placed = await repo.insertPlaced(
        req.messages.map((m, i) => outgoing(req, req.deviceIds[i]!, m, null, batchId)),
        { batchId, clientId: req.clientId, mode: modeOf(req.mode) },
      );
      wake(placed);
      return { batchId, messages: placed.map((p) => toProto(p.row)), queuedAt: iso(placed[0]!.row.queued_at) };
    },

    async GetMessage(req) {
      const row = await repo.find(req.clientId, req.messageId, modeOf(req.mode));
      if (!row) throw new AppError('MESSAGE_NOT_FOUND');
      return toProto(row);
    },

    async CancelMessage(req) {
      const mode = modeOf(req.mode);
      const cancelled = await repo.cancel(req.clientId, req.messageId, mode);
      if (cancelled) {
        await scheduledSends?.cancel(cancelled);
        return toProto(cancelled);
      }
      const row = await repo.find(req.clientId, req.messageId, mode);
      if (!row) throw new AppError('MESSAGE_NOT_FOUND');
      throw new AppError('MESSAGE_NOT_CANCELLABLE', {
        details: [{ field: 'status', code: 'MESSAGE_NOT_CANCELLABLE', status: row.status, dispatching: row.status === 'queued' }],
      });
    },

    async ClaimNext(req) {
      const mode = modeOf(req.mode);
      if (mode === 'live' && !req.deviceId) throw new AppError('INVALID_DEVICE_ID', { details: [{ field: 'device_id', code: 'INVALID_DEVICE_ID' }] });
      const row = await repo.claimNext(req.deviceId, req.leaseMs || 30_000, mode);
      return row ? { message: toProto(row), attempt: row.claim_count } : { attempt: 0 };
    },

    async QueueDepths(req) {
      const depths = await repo.queueDepths(req.deviceIds);
      return { depths: Object.fromEntries(req.deviceIds.map((id) => [id, depths.get(id) ?? 0])) };
    },

    async ListMessages(req) {
      const page = pageOf(req.page, req.limit);
      const { rows, total } = await history.list(req.clientId, modeOf(req.mode), historyFilter(req), page);
      return { messages: rows.map(toProto), page: page.page, perPage: page.limit, totalPages: totalPages(total, page.limit), totalItems: total };
    },

    async GetStats(req) {
      const period = statsPeriod(req.fromDate, req.toDate, new Date());
      const days = await history.dayCounts(req.clientId, modeOf(req.mode), period, req.deviceId || undefined);
      return { from: period.from.toISOString(), to: new Date(period.until.getTime() - 1).toISOString(), ...summarize(days) };
    },

    async RunRetention(req) {
      if (req.retentionDays < 0 || req.retentionDays > MAX_RETENTION_DAYS) {
        throw new AppError('VALIDATION_ERROR', {
          message: `retention_days doit être un nombre de jours entre 1 et ${MAX_RETENTION_DAYS} (0 : la durée configurée).`,
          details: [{ field: 'retention_days', code: 'VALIDATION_ERROR' }],
        });
      }
      const deleted = await history.runRetention(req.retentionDays || config.retention.days, { wait: true });
      return { deleted: deleted ?? 0 };
    },
  };
}
