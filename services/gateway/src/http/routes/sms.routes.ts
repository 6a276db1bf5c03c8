import Router from '@koa/router';
import type { message } from '@smsgw/proto';
import { AppError, isStorableText, modeToProto } from '@smsgw/platform';
import { normalizePhoneNumber, parseBulkRequest, parsePersonalizedRequest, parseSendRequest, type BatchRequest, type WebhookUrlPolicy } from '../../domain/send-request';
import { chooseDevice, spreadOverDevices, type Upstreams } from '../../use-cases';
import type { GatewayContext, GatewayMiddleware, GatewayState } from '../context';
import { jsonBody } from '../middleware/json-body';

const PRIORITY_LABELS: Record<number, string> = { 1: 'very_high', 2: 'high', 3: 'normal', 4: 'low', 5: 'very_low' };

/** The status response: timestamps appear once reached. */
export function statusBody(m: message.Message__Output): Record<string, unknown> {
  const body: Record<string, unknown> = {
    success: true,
    message_id: m.messageId,
    status: m.status,
    to: m.to,
    message: m.text,
    priority: PRIORITY_LABELS[m.priority] ?? 'normal',
    parts: m.parts,
    encoding: m.encoding,
    created_at: m.createdAt,
    queued_at: m.queuedAt,
  };
  if (m.scheduledAt) body.scheduled_at = m.scheduledAt;
  if (m.sentAt) body.sent_at = m.sentAt;
  if (m.deliveredAt) body.delivered_at = m.deliveredAt;
  if (m.failedAt) body.failed_at = m.failedAt;
  if (m.cancelledAt) body.cancelled_at = m.cancelledAt;
  if (m.errorCode) body.error = { code: m.errorCode, message: m.errorMessage };
  body.metadata = m.metadataJson ? (JSON.parse(m.metadataJson) as unknown) : {};
  return body;
}

const HISTORY_STATUSES = ['queued', 'sent', 'delivered', 'failed', 'cancelled'];

/** A history entry: the specification's fields, unreached timestamps as null. */
function historyItem(m: message.Message__Output): Record<string, unknown> {
  return {
    message_id: m.messageId,
    status: m.status,
    to: m.to,
    message: m.text,
    priority: PRIORITY_LABELS[m.priority] ?? 'normal',
    device_id: m.deviceId,
    batch_id: m.batchId || null,
    created_at: m.createdAt,
    sent_at: m.sentAt || null,
    delivered_at: m.deliveredAt || null,
    failed_at: m.failedAt || null,
    scheduled_at: m.scheduledAt || null,
  };
}

/** A query parameter; text Postgres cannot take (U+0000, a lone surrogate) is refused for every filter. */
function queryString(ctx: GatewayContext, name: string): string | undefined {
  const value = ctx.query[name];
  if (typeof value !== 'string' || value === '') return undefined;
  if (!isStorableText(value)) throw new AppError('INVALID_CHARACTER', { details: [{ field: name, code: 'INVALID_CHARACTER' }] });
  return value;
}

// The shape of every message id (`msg_` and a ULID): anything else cannot exist.
const MESSAGE_ID = /^msg_[0-9A-Z]{26}$/;

/** The `message_id` path parameter; an id that cannot exist is not looked up. */
function messageIdParam(ctx: GatewayContext): string {
  const id = ctx.params.message_id ?? '';
  if (!MESSAGE_ID.test(id)) throw new AppError('MESSAGE_NOT_FOUND');
  return id;
}

/** A positive integer query parameter, or INVALID_PAGINATION. */
function pageNumber(ctx: GatewayContext, name: string, fallback: number): number {
  const text = queryString(ctx, name);
  if (text === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(text)) {
    throw new AppError('INVALID_PAGINATION', { details: [{ field: name, code: 'INVALID_PAGINATION' }] });
  }
  return Number(text);
}

/**
 * The messaging endpoints. `auth` checks the credentials, `guard` applies the
 * rate limit, `idempotent` replays a send made again with its Idempotency-Key.
 */
export function smsRoutes(
  up: Upstreams,
  auth: GatewayMiddleware,
  guard: GatewayMiddleware,
  idempotent: GatewayMiddleware,
  webhookPolicy: WebhookUrlPolicy,
): Router<GatewayState> {
  const router = new Router<GatewayState>();

  async function sendBatch(ctx: GatewayContext, request: BatchRequest): Promise<void> {
    const session = ctx.state.auth!;
    const deviceIds = await spreadOverDevices(up, session, ctx.get('x-device-id') || undefined, request.items.length);
    const batch = await up.messages.sendBatch({
      clientId: session.clientId,
      mode: modeToProto(session.mode),
      deviceIds,
      messages: request.items.map((i) => ({ to: i.to, text: i.message, metadataJson: i.metadata ? JSON.stringify(i.metadata) : '' })),
      priority: request.priority,
      webhookUrl: request.webhookUrl ?? '',
      idempotencyKey: ctx.state.idempotency?.key ?? '',
      requestHash: ctx.state.idempotency?.requestHash ?? '',
    });
    if (batch.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = {
      success: true,
      batch_id: batch.batchId,
      total_recipients: batch.messages.length,
      messages: batch.messages.map((m) => ({ message_id: m.messageId, to: m.to, status: m.status, device_id: m.deviceId, parts: m.parts, encoding: m.encoding })),
      queued_at: batch.queuedAt,
    };
  }

  router.post('/v1/sms/send-bulk', auth, guard, jsonBody, idempotent, async (ctx) => {
    await sendBatch(ctx, parseBulkRequest(ctx.state.body!, webhookPolicy));
  });

  router.post('/v1/sms/send-bulk-personalized', auth, guard, jsonBody, idempotent, async (ctx) => {
    await sendBatch(ctx, parsePersonalizedRequest(ctx.state.body!, webhookPolicy));
  });

  router.get('/v1/sms/history', auth, guard, async (ctx) => {
    const session = ctx.state.auth!;
    const page = pageNumber(ctx, 'page', 1);
    const limit = pageNumber(ctx, 'limit', 50);
    const status = queryString(ctx, 'status');
    if (status !== undefined && !HISTORY_STATUSES.includes(status)) {
      throw new AppError('INVALID_STATUS', { details: [{ field: 'status', code: 'INVALID_STATUS' }] });
    }
    const toFilter = queryString(ctx, 'to');
    const to = toFilter === undefined ? '' : normalizePhoneNumber(toFilter);
    if (to === undefined) throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'to', code: 'INVALID_PHONE_NUMBER' }] });
    const list = await up.messages.listMessages({
      clientId: session.clientId,
      mode: modeToProto(session.mode),
      page,
      limit,
      status: status ?? '',
      to,
      fromDate: queryString(ctx, 'from_date') ?? '',
      toDate: queryString(ctx, 'to_date') ?? '',
      deviceId: queryString(ctx, 'device_id') ?? '',
      // 200 characters at most, cut between code points (a cut pair would be a lone surrogate).
      search: Array.from(queryString(ctx, 'search') ?? '').slice(0, 200).join(''),
    });
    ctx.body = {
      success: true,
      data: list.messages.map(historyItem),
      pagination: { current_page: list.page, per_page: list.perPage, total_pages: list.totalPages, total_items: list.totalItems },
    };
  });

  router.get('/v1/sms/stats', auth, guard, async (ctx) => {
    const session = ctx.state.auth!;
    const stats = await up.messages.getStats({
      clientId: session.clientId,
      mode: modeToProto(session.mode),
      fromDate: queryString(ctx, 'from_date') ?? '',
      toDate: queryString(ctx, 'to_date') ?? '',
      deviceId: queryString(ctx, 'device_id') ?? '',
    });
    ctx.body = {
      success: true,
      period: { from: stats.from, to: stats.to },
      stats: {
        total_sent: stats.totalSent,
        delivered: stats.delivered,
        failed: stats.failed,
        pending: stats.pending,
        delivery_rate: stats.deliveryRate,
        by_day: stats.byDay.map((d) => ({ date: d.date, sent: d.sent, delivered: d.delivered, failed: d.failed })),
      },
    };
  });

  router.delete('/v1/sms/:message_id', auth, guard, async (ctx) => {
    const session = ctx.state.auth!;
    const m = await up.messages.cancelMessage({ clientId: session.clientId, messageId: messageIdParam(ctx), mode: modeToProto(session.mode) });
    ctx.body = { success: true, message: 'Message annulé.', message_id: m.messageId, status: m.status, cancelled_at: m.cancelledAt };
  });

  /**
   * Asks for the presence of the X-Device-ID device in the same turn as the
   * rate limit, so both leave in one Redis round trip; the answer is used
   * only after the device is known to be the client's.
   */
  const askPresence: GatewayMiddleware = (ctx, next) => {
    const deviceId = ctx.get('x-device-id');
    if (deviceId && ctx.state.auth?.mode === 'live') {
      const online = up.directory.isOnline(deviceId);
      online.catch(() => undefined); // awaited later, or not at all if the request stops before
      ctx.state.presence = { deviceId, online };
    }
    return next();
  };

  router.post('/v1/sms/send', auth, askPresence, guard, jsonBody, idempotent, async (ctx) => {
    const session = ctx.state.auth!;
    const request = parseSendRequest(ctx.state.body!, Date.now(), webhookPolicy);
    const device = await chooseDevice(up, session, ctx.get('x-device-id') || undefined, {
      allowOffline: request.scheduledAt !== undefined,
      presence: ctx.state.presence,
    });
    const receipt = await up.sends.send({
      clientId: session.clientId,
      mode: modeToProto(session.mode),
      deviceId: device.deviceId,
      message: { to: request.to, text: request.message, metadataJson: request.metadata ? JSON.stringify(request.metadata) : '' },
      priority: request.priority,
      webhookUrl: request.webhookUrl ?? '',
      scheduledAt: request.scheduledAt?.toISOString() ?? '',
      idempotencyKey: ctx.state.idempotency?.key ?? '',
      requestHash: ctx.state.idempotency?.requestHash ?? '',
    });
    // Stored by an earlier request with this Idempotency-Key (its answer was lost): that message.
    if (receipt.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = {
      success: true,
      message_id: receipt.messageId,
      status: receipt.status,
      to: request.to,
      device_id: receipt.deviceId || device.deviceId,
      parts: receipt.parts,
      encoding: receipt.encoding,
      queued_at: receipt.queuedAt,
      ...(receipt.scheduledAt ? { scheduled_at: receipt.scheduledAt } : {}),
      estimated_delivery: receipt.estimatedDelivery,
    };
  });

  router.get('/v1/sms/status/:message_id', auth, guard, async (ctx) => {
    const session = ctx.state.auth!;
    const m = await up.messages.getMessage({ clientId: session.clientId, messageId: messageIdParam(ctx), mode: modeToProto(session.mode) });
    ctx.body = statusBody(m);
  });

  return router;
}
