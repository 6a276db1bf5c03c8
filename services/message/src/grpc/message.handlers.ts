import { AppError, newId, type AsyncHandlers, type Nats } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { MessageConfig } from '../config';
import type { HistoryRepository } from '../data/history.repository';
import type { MessageRepository, MessageRow, Mode, NewMessage } from '../data/message.repository';
import { historyFilter, pageOf, totalPages } from '../domain/history';
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

export function messageHandlers(
  repo: MessageRepository,
  nats: Nats,
  config: Pick<MessageConfig, 'pacing' | 'retention'>,
  history: HistoryRepository,
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

  /** Hints that due messages wait: to the hub holding each phone, or to the simulated device of test keys. */
  function wake(rows: MessageRow[]): void {
    const due = rows.filter((r) => !r.scheduled_at || r.scheduled_at <= new Date());
    for (const deviceId of new Set(due.filter((r) => r.mode === 'live').map((r) => r.device_id))) {
      nats.nc.publish(nats.names.wake(deviceId));
    }
    if (due.some((r) => r.mode === 'test')) nats.nc.publish(nats.names.testWake);
  }

  return {
    async Send(req) {
      if (!req.message) throw new AppError('MESSAGE_REQUIRED');
      const scheduledAt = req.scheduledAt ? new Date(req.scheduledAt) : null;
      const [row] = await repo.insert([outgoing(req, req.deviceId, req.message, scheduledAt, null)]);
      wake([row!]);
      const ahead = await repo.queuePosition(row!);
      const start = Math.max(Date.now(), row!.due_at.getTime());
      return { message: toProto(row!), estimatedDelivery: new Date(start + ahead * averagePacingMs).toISOString() };
    },

    async SendBatch(req) {
      if (req.messages.length === 0) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'messages', code: 'MESSAGE_REQUIRED' }] });
      if (req.deviceIds.length !== req.messages.length) throw new AppError('INVALID_DEVICE_ID');
      const batchId = newId('batch');
      const rows = await repo.insert(
        req.messages.map((m, i) => outgoing(req, req.deviceIds[i]!, m, null, batchId)),
        { batchId, clientId: req.clientId, mode: modeOf(req.mode) },
      );
      wake(rows);
      return { batchId, messages: rows.map(toProto), queuedAt: iso(rows[0]!.queued_at) };
    },

    async GetMessage(req) {
      const row = await repo.find(req.clientId, req.messageId, modeOf(req.mode));
      if (!row) throw new AppError('MESSAGE_NOT_FOUND');
      return toProto(row);
    },

    async CancelMessage(req) {
      const mode = modeOf(req.mode);
      const cancelled = await repo.cancel(req.clientId, req.messageId, mode);
      if (cancelled) return toProto(cancelled);
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
