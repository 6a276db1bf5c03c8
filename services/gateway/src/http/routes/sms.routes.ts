import Router from '@koa/router';
import type { message } from '@smsgw/proto';
import { parseSendRequest } from '../../domain/send-request';
import { chooseDevice, type Upstreams } from '../../use-cases';
import type { GatewayMiddleware, GatewayState } from '../context';
import { jsonBody } from '../middleware/json-body';

const PRIORITY_LABELS: Record<number, string> = { 1: 'very_high', 2: 'high', 3: 'normal', 4: 'low', 5: 'very_low' };
const modeOf = (mode: 'live' | 'test') => (mode === 'test' ? 'MODE_TEST' : 'MODE_LIVE');

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

export function smsRoutes(up: Upstreams, auth: GatewayMiddleware): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/v1/sms/send', auth, jsonBody, async (ctx) => {
    const session = ctx.state.auth!;
    const request = parseSendRequest(ctx.state.body!);
    const device = await chooseDevice(up, session, ctx.get('x-device-id') || undefined, { allowOffline: request.scheduledAt !== undefined });
    const sent = await up.messages.send({
      clientId: session.clientId,
      mode: modeOf(session.mode),
      deviceId: device.deviceId,
      message: { to: request.to, text: request.message, metadataJson: request.metadata ? JSON.stringify(request.metadata) : '' },
      priority: request.priority,
      webhookUrl: request.webhookUrl ?? '',
      scheduledAt: request.scheduledAt?.toISOString() ?? '',
    });
    const m = sent.message!;
    ctx.body = {
      success: true,
      message_id: m.messageId,
      status: m.status,
      to: m.to,
      device_id: m.deviceId,
      priority: m.priority,
      parts: m.parts,
      encoding: m.encoding,
      queued_at: m.queuedAt,
      ...(m.scheduledAt ? { scheduled_at: m.scheduledAt } : {}),
      estimated_delivery: sent.estimatedDelivery,
    };
  });

  router.get('/v1/sms/status/:message_id', auth, async (ctx) => {
    const session = ctx.state.auth!;
    const m = await up.messages.getMessage({ clientId: session.clientId, messageId: ctx.params.message_id!, mode: modeOf(session.mode) });
    ctx.body = statusBody(m);
  });

  return router;
}
