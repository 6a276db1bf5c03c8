import { AppError, activeSpan, counter, currentTraceparent, endSpan, isStorableJson, isStorableText, modeFromProto, modeToProto, newId, startSpanInTrace, traceparentOf, withSpan, type AsyncHandlers, type Logger, type Nats } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { MessageConfig } from '../config';
import type { HistoryRepository } from '../data/history.repository';
import type { Idempotency, MessageRepository, MessageRow, NewMessage, PlacedMessage } from '../data/message.repository';
import { historyFilter, pageOf, totalPages } from '../domain/history';
import type { ScheduledSends } from '../events/scheduled-sends';
import { statsPeriod } from '../domain/period';
import { openText, sealText } from '../domain/otp-seal';
import { measureSms } from '../domain/sms-encoding';
import { summarize } from '../domain/stats';

const claims = counter('message.claims', 'Messages handed to a phone (or the test-mode simulator), first claims and claims after a lease expired');

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : '');

/** About a century: the cutoff stays a date Postgres can compute. */
const MAX_RETENTION_DAYS = 36_500;

export function toProto(row: MessageRow): message.Message {
  return {
    messageId: row.message_id,
    clientId: row.client_id,
    deviceId: row.device_id,
    batchId: row.batch_id ?? '',
    mode: modeToProto(row.mode),
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
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('METADATA_TOO_LARGE', { details: [{ field: 'metadata', code: 'METADATA_TOO_LARGE' }] });
  }
  if (!isStorableJson(value)) throw new AppError('INVALID_CHARACTER', { details: [{ field: 'metadata', code: 'INVALID_CHARACTER' }] });
  return value as Record<string, unknown>;
}

/** A text field Postgres can store, or INVALID_CHARACTER naming the field. */
function storable(text: string, field: string): string {
  if (!isStorableText(text)) throw new AppError('INVALID_CHARACTER', { details: [{ field, code: 'INVALID_CHARACTER' }] });
  return text;
}

function idempotencyOf(req: { idempotencyKey: string; requestHash: string }): Idempotency | null {
  if (!req.idempotencyKey) return null;
  if (req.idempotencyKey.length > 255) throw new AppError('INVALID_IDEMPOTENCY_KEY');
  return { key: storable(req.idempotencyKey, 'idempotency_key'), requestHash: storable(req.requestHash, 'request_hash') };
}

/**
 * SQLSTATE classes of a statement refused for what it carries (cardinality,
 * data, integrity), as opposed to the database being unreachable or busy.
 */
const REFUSED_DATA = /^(21|22|23)/;

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The error a client sees for a statement Postgres refused. */
function refusedError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const state = sqlState(err);
  // 22021: a byte sequence not valid in UTF-8 (text); 22P05: a character jsonb cannot hold (\u0000).
  if (state === '22021' || state === '22P05') return new AppError('INVALID_CHARACTER', { cause: err });
  if (state === '22003' || (state === '23514' && (err as { constraint?: string }).constraint === 'messages_priority_check')) {
    return new AppError('INVALID_PRIORITY', { details: [{ field: 'priority', code: 'INVALID_PRIORITY' }], cause: err });
  }
  if (state && REFUSED_DATA.test(state)) return new AppError('VALIDATION_ERROR', { message: 'Données refusées par la base de données.', cause: err });
  return new AppError('INTERNAL_ERROR', { cause: err });
}

/**
 * A stored message as its send answered it (`queued`), for a send made again
 * with its Idempotency-Key: the same answer, whatever became of it since
 * (its status tells that).
 */
function asAnswered(row: MessageRow): MessageRow {
  return { ...row, status: 'queued' };
}

/** What became of one send: stored now, stored already (same key), or refused. */
interface SendOutcome {
  row?: MessageRow;
  estimatedDelivery?: string;
  /** The message was stored by an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
  error?: AppError;
}

export function messageHandlers(
  repo: MessageRepository,
  nats: Nats,
  config: Pick<MessageConfig, 'pacing' | 'retention' | 'idempotencyTtlSeconds' | 'otp'>,
  history: HistoryRepository,
  log: Logger,
  scheduledSends?: ScheduledSends,
): AsyncHandlers<message.MessageServiceHandlers> {
  const averagePacingMs = (config.pacing.minMs + config.pacing.maxMs) / 2;
  const keyTtl = config.idempotencyTtlSeconds;

  function outgoing(req: { clientId: string; mode: string; priority: number; webhookUrl: string }, deviceId: string, m: message.OutgoingMessage__Output, scheduledAt: Date | null, batchId: string | null): NewMessage {
    if (!deviceId) throw new AppError('INVALID_DEVICE_ID');
    if (!m.text) throw new AppError('MESSAGE_REQUIRED');
    const size = measureSms(storable(m.text, 'message'));
    return {
      messageId: newId('msg'),
      clientId: storable(req.clientId, 'client_id'),
      mode: modeFromProto(req.mode),
      deviceId: storable(deviceId, 'device_id'),
      batchId,
      to: storable(m.to, 'to'),
      text: m.text,
      priority: req.priority || 3,
      metadata: parseMetadata(m.metadataJson),
      webhookUrl: req.webhookUrl ? storable(req.webhookUrl, 'webhook_url') : null,
      parts: size.parts,
      encoding: size.encoding,
      scheduledAt,
    };
  }

  /** When a message should be delivered, `ahead` messages of its device going first. */
  function estimate(row: MessageRow, ahead: number): string {
    if (row.status !== 'queued') return iso(row.sent_at ?? row.failed_at ?? row.cancelled_at ?? row.queued_at);
    const start = Math.max(Date.now(), row.due_at.getTime());
    return new Date(start + ahead * averagePacingMs).toISOString();
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
   * Stores the messages in one statement; when Postgres refuses that
   * statement for what one of them carries, stores each on its own, so that
   * one send's input never fails the others. For each message: where it was
   * placed, `undefined` when its Idempotency-Key was stored already, or the
   * error that refused it alone. A database that is down fails them all.
   */
  async function store(messages: NewMessage[]): Promise<(PlacedMessage | AppError | undefined)[]> {
    const stored = (placed: PlacedMessage[]) => {
      const byId = new Map(placed.map((p) => [p.row.message_id, p]));
      return messages.map((m) => byId.get(m.messageId));
    };
    try {
      return stored(await repo.insertPlaced(messages, undefined, keyTtl));
    } catch (err) {
      const state = sqlState(err);
      if (!state || !REFUSED_DATA.test(state)) throw err;
      if (messages.length === 1) return [refusedError(err)];
      log.warn({ sqlstate: state, gathered: messages.length }, 'gathered sends refused by the database: storing them one by one');
    }
    const out: (PlacedMessage | AppError | undefined)[] = [];
    for (const m of messages) {
      try {
        const [placed] = await repo.insertPlaced([m], undefined, keyTtl);
        out.push(placed);
      } catch (err) {
        out.push(refusedError(err));
      }
    }
    return out;
  }

  /**
   * The answers to sends whose Idempotency-Key was stored already: the
   * message stored then (same id, its current status), or
   * IDEMPOTENCY_KEY_REUSED when the key came with another request.
   */
  async function replays(messages: { index: number; message: NewMessage }[], results: SendOutcome[]): Promise<void> {
    if (messages.length === 0) return;
    const keyOf = (clientId: string, mode: string, key: string) => `${clientId}\u0000${mode}\u0000${key}`;
    const keys = await repo.findKeys(messages.map(({ message: m }) => ({ clientId: m.clientId, mode: m.mode, key: m.idempotency!.key })));
    const byKey = new Map(keys.map((k) => [keyOf(k.client_id, k.mode, k.idempotency_key), k]));
    const wanted = messages.map(({ message: m }) => byKey.get(keyOf(m.clientId, m.mode, m.idempotency!.key)));
    const ids = wanted.flatMap((k, i) => (k?.message_id && k.request_hash === messages[i]!.message.idempotency!.requestHash ? [k.message_id] : []));
    const rows = new Map((ids.length > 0 ? await repo.findPlaced(ids) : []).map((p) => [p.row.message_id, p]));
    messages.forEach(({ index, message: m }, i) => {
      const key = wanted[i];
      const found = key?.message_id ? rows.get(key.message_id) : undefined;
      if (key && key.request_hash !== m.idempotency!.requestHash) results[index] = { error: new AppError('IDEMPOTENCY_KEY_REUSED') };
      else if (found && found.row.client_id === m.clientId) results[index] = { row: asAnswered(found.row), estimatedDelivery: estimate(found.row, found.ahead), replayed: true };
      // Taken over (expired) or deleted meanwhile: the client may simply try again.
      else results[index] = { error: new AppError('IDEMPOTENCY_IN_PROGRESS', { retryAfterSeconds: 1 }) };
    });
  }

  /**
   * Stores independent sends in one statement (one transaction, one WAL
   * flush), wakes their devices, and estimates each one's delivery. An item
   * refused here fails alone, also when Postgres refuses what it carries
   * (see `store`); a database that is down fails them all. A send whose
   * Idempotency-Key is stored already gets the message stored then.
   * Each item's work is recorded in the trace of the API request it came
   * from (`traceparent`), linked to the span of the call that carried it.
   */
  async function sendMany(items: message.SendManyItem__Output[]): Promise<SendOutcome[]> {
    const call = activeSpan()?.spanContext();
    const spans = items.map((item) => startSpanInTrace('message.queue', item.traceparent, call ? [call] : []));
    const results: SendOutcome[] = new Array(items.length);
    const accepted: { index: number; message: NewMessage }[] = [];
    // One key twice in one call: the second is answered like a retry of the first.
    const keyed = new Map<string, number>();
    const repeats: { index: number; first: number }[] = [];
    items.forEach(({ request }, index) => {
      try {
        if (!request?.message) throw new AppError('MESSAGE_REQUIRED');
        const scheduledAt = request.scheduledAt ? new Date(request.scheduledAt) : null;
        const m = {
          ...outgoing(request, request.deviceId, request.message, scheduledAt, null),
          idempotency: idempotencyOf(request),
          traceparent: traceparentOf(spans[index]!),
        };
        if (m.idempotency) {
          const key = `${m.clientId}\u0000${m.mode}\u0000${m.idempotency.key}`;
          const first = keyed.get(key);
          if (first !== undefined) {
            repeats.push({ index, first });
            return;
          }
          keyed.set(key, index);
        }
        accepted.push({ index, message: m });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        results[index] = { error: err };
      }
    });
    try {
      if (accepted.length > 0) {
        const outcomes = await store(accepted.map((a) => a.message));
        const placed: PlacedMessage[] = [];
        const taken: { index: number; message: NewMessage }[] = [];
        outcomes.forEach((outcome, k) => {
          const { index, message: m } = accepted[k]!;
          if (outcome instanceof AppError) results[index] = { error: outcome };
          else if (!outcome) taken.push(accepted[k]!);
          else {
            placed.push(outcome);
            results[index] = { row: outcome.row, estimatedDelivery: estimate(outcome.row, outcome.ahead) };
            withSpan(spans[index]!, () => log.debug({ message_id: outcome.row.message_id, device_id: outcome.row.device_id, gathered: items.length }, 'message queued'));
          }
          if (outcome instanceof AppError && outcome.code === 'INTERNAL_ERROR') log.error({ err: outcome.cause, device_id: m.deviceId }, 'send refused by the database');
        });
        wake(placed);
        // After the commit: a scheduled message is answered once its timer exists.
        await scheduledSends?.schedule(placed.map((p) => p.row));
        await replays(taken, results);
      }
    } catch (err) {
      for (const span of spans) endSpan(span, err instanceof AppError ? err.code : 'INTERNAL_ERROR');
      throw err;
    }
    for (const { index, first } of repeats) {
      const same = items[index]!.request!.requestHash === items[first]!.request!.requestHash;
      results[index] = same && results[first]!.row ? { ...results[first]!, replayed: true } : same ? results[first]! : { error: new AppError('IDEMPOTENCY_KEY_REUSED') };
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
        results: results.map(({ row, estimatedDelivery, replayed, error }) =>
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
                  replayed: replayed === true,
                  deviceId: row!.device_id,
                },
              },
        ),
      };
    },

    async SendBatch(req) {
      if (req.messages.length === 0) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'messages', code: 'MESSAGE_REQUIRED' }] });
      if (req.deviceIds.length !== req.messages.length) throw new AppError('INVALID_DEVICE_ID');
      const batchId = newId('batch');
      const batch = { batchId, clientId: storable(req.clientId, 'client_id'), mode: modeFromProto(req.mode), idempotency: idempotencyOf(req) };
      const traceparent = currentTraceparent();
      const messages = req.messages.map((m, i) => {
        try {
          return { ...outgoing(req, req.deviceIds[i]!, m, null, batchId), traceparent };
        } catch (err) {
          // Name the message that failed, as the API does.
          if (err instanceof AppError && err.details?.length === 1) {
            throw new AppError(err.code, { details: [{ ...err.details[0], field: `messages[${i}].${err.details[0]!.field}` }] });
          }
          throw err;
        }
      });
      let placed: PlacedMessage[];
      try {
        placed = await repo.insertPlaced(messages, batch, keyTtl);
      } catch (err) {
        const state = sqlState(err);
        throw state && REFUSED_DATA.test(state) ? refusedError(err) : err;
      }
      if (placed.length > 0) {
        wake(placed);
        return { batchId, messages: placed.map((p) => toProto(p.row)), queuedAt: iso(placed[0]!.row.queued_at), replayed: false };
      }
      // The key is stored already: the batch stored then, or another request's key.
      const [key] = await repo.findKeys([{ clientId: batch.clientId, mode: batch.mode, key: batch.idempotency!.key }]);
      if (key && key.request_hash !== batch.idempotency!.requestHash) throw new AppError('IDEMPOTENCY_KEY_REUSED');
      const rows = key?.batch_id ? await repo.findBatch(key.batch_id) : [];
      if (rows.length === 0) throw new AppError('IDEMPOTENCY_IN_PROGRESS', { retryAfterSeconds: 1 });
      return { batchId: key!.batch_id!, messages: rows.map((r) => toProto(asAnswered(r))), queuedAt: iso(rows[0]!.queued_at), replayed: true };
    },

    async SendOtpMessage(req) {
      if (!req.deviceId) throw new AppError('INVALID_DEVICE_ID');
      if (!req.text || !req.maskedText) throw new AppError('MESSAGE_REQUIRED');
      const expiresAt = new Date(req.expiresAt);
      if (Number.isNaN(expiresAt.getTime())) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'expires_at', code: 'VALIDATION_ERROR' }] });
      // Parts and encoding are the phone's: those of the full text.
      const size = measureSms(req.text);
      if (req.messageId && !/^msg_[0-9A-HJKMNP-TV-Z]{26}$/.test(req.messageId)) {
        throw new AppError('VALIDATION_ERROR', { details: [{ field: 'message_id', code: 'VALIDATION_ERROR' }] });
      }
      const message: NewMessage = {
        messageId: req.messageId || newId('msg'),
        clientId: req.clientId,
        mode: modeFromProto(req.mode),
        deviceId: req.deviceId,
        batchId: null,
        to: req.to,
        text: req.maskedText,
        priority: 1,
        metadata: parseMetadata(req.metadataJson),
        webhookUrl: null,
        parts: size.parts,
        encoding: size.encoding,
        scheduledAt: null,
        traceparent: currentTraceparent(),
      };
      const stored = await repo.insertOtp(message, sealText(config.otp.sealKey, message.messageId, req.text), expiresAt);
      // The id is another client's (or another mode's): nothing of theirs is shown.
      if (!stored) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'message_id', code: 'VALIDATION_ERROR' }] });
      const { row, ahead, created } = stored;
      if (created) wake([{ row, ahead, deviceWasIdle: true }]);
      return { message: toProto(row), estimatedDelivery: new Date(Date.now() + ahead * averagePacingMs).toISOString(), replayed: !created };
    },

    async GetMessage(req) {
      const row = await repo.find(req.clientId, req.messageId, modeFromProto(req.mode));
      if (!row) throw new AppError('MESSAGE_NOT_FOUND');
      return toProto(row);
    },

    async CancelMessage(req) {
      const mode = modeFromProto(req.mode);
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
      const mode = modeFromProto(req.mode);
      if (mode === 'live' && !req.deviceId) throw new AppError('INVALID_DEVICE_ID', { details: [{ field: 'device_id', code: 'INVALID_DEVICE_ID' }] });
      const row = await repo.claimNext(req.deviceId, req.leaseMs || 30_000, mode);
      if (!row) return { attempt: 0 };
      // A claim after the first is a lease that ran out before the phone acknowledged.
      claims.add(1, { mode, claim: row.claim_count > 1 ? 'after_lease_expiry' : 'first' });
      // An OTP's SMS goes to the phone in full; everywhere else its code stays masked.
      const text = row.otp_sealed_text ? openText(config.otp.sealKey, row.message_id, row.otp_sealed_text) : row.body;
      return { message: { ...toProto(row), text }, attempt: row.claim_count, traceparent: row.traceparent ?? '' };
    },

    async AcceptMessage(req) {
      const at = req.at && !Number.isNaN(Date.parse(req.at)) ? new Date(req.at) : new Date();
      const outcome = await repo.markAccepted(req.messageId, req.deviceId, at);
      if (!outcome) throw new AppError('MESSAGE_NOT_FOUND');
      return outcome;
    },

    async QueueDepths(req) {
      const depths = await repo.queueDepths(req.deviceIds);
      return { depths: Object.fromEntries(req.deviceIds.map((id) => [id, depths.get(id) ?? 0])) };
    },

    async ListMessages(req) {
      const page = pageOf(req.page, req.limit);
      const { rows, total } = await history.list(req.clientId, modeFromProto(req.mode), historyFilter(req), page);
      return { messages: rows.map(toProto), page: page.page, perPage: page.limit, totalPages: totalPages(total, page.limit), totalItems: total };
    },

    async GetStats(req) {
      const period = statsPeriod(req.fromDate, req.toDate, new Date(), config.retention.days);
      const days = await history.dayCounts(req.clientId, modeFromProto(req.mode), period, req.deviceId || undefined);
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
