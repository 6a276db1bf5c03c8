import Router from '@koa/router';
import {
  parseBulkRequest,
  parsePersonalizedRequest,
  parseSendRequest,
  type BatchRequest,
  type WebhookUrlPolicy,
} from '../../domain/send-request';
import { checkSmsDestinations } from '../../domain/destination-rules';
import { batchBody, cancelBody, historyBody, sendBody, statsBody, statusBody } from '../../mappers/sms.mapper';
import { history, statistics } from '../../use-cases/history.use-case';
import { cancelMessage, messageStatus } from '../../use-cases/message-status.use-case';
import { sendBatch } from '../../use-cases/send-batch.use-case';
import { sendSms } from '../../use-cases/send-sms.use-case';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayContext, GatewayMiddleware, GatewayState } from '../context';
import { allow } from '../middleware/scopes';
import { jsonBody } from '../middleware/json-body';
import { askPresence } from '../middleware/presence';
import { historyQuery, messageIdParam, statsQuery } from '../query';

/**
 * The messaging endpoints. `auth` checks the credentials, `guard` applies the
 * rate limit, `idempotent` replays a send made again with its Idempotency-Key.
 * Each route parses, calls one use case, and maps its answer.
 */
export function smsRoutes(
  up: Upstreams,
  auth: GatewayMiddleware,
  guard: GatewayMiddleware,
  idempotent: GatewayMiddleware,
  webhookPolicy: WebhookUrlPolicy,
): Router<GatewayState> {
  const router = new Router<GatewayState>();

  async function batch(ctx: GatewayContext, request: BatchRequest): Promise<void> {
    const sent = await sendBatch(up, ctx.state.auth!, request, {
      deviceId: ctx.get('x-device-id') || undefined,
      presence: ctx.state.presence,
      idempotency: ctx.state.idempotency,
    });
    if (sent.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = batchBody(sent);
  }

  router.post('/v1/sms/send-bulk', auth, allow('send'), askPresence(up), guard, jsonBody, idempotent, async (ctx) => {
    const request = parseBulkRequest(ctx.state.body!, webhookPolicy);
    checkSmsDestinations(
      ctx.state.auth!.destinations,
      request.items.map((item, i) => ({ to: item.to, field: `recipients[${i}]` })),
    );
    await batch(ctx, request);
  });

  router.post('/v1/sms/send-bulk-personalized', auth, allow('send'), askPresence(up), guard, jsonBody, idempotent, async (ctx) => {
    const request = parsePersonalizedRequest(ctx.state.body!, webhookPolicy);
    checkSmsDestinations(
      ctx.state.auth!.destinations,
      request.items.map((item, i) => ({ to: item.to, field: `messages[${i}].to` })),
    );
    await batch(ctx, request);
  });

  router.get('/v1/sms/history', auth, allow('read'), guard, async (ctx) => {
    const query = historyQuery(ctx);
    ctx.body = historyBody(await history(up, ctx.state.auth!, query));
  });

  router.get('/v1/sms/stats', auth, allow('read'), guard, async (ctx) => {
    const query = statsQuery(ctx);
    ctx.body = statsBody(await statistics(up, ctx.state.auth!, query));
  });

  router.delete('/v1/sms/:message_id', auth, allow('send'), guard, async (ctx) => {
    ctx.body = cancelBody(await cancelMessage(up, ctx.state.auth!, messageIdParam(ctx)));
  });

  router.post('/v1/sms/send', auth, allow('send'), askPresence(up), guard, jsonBody, idempotent, async (ctx) => {
    const request = parseSendRequest(ctx.state.body!, Date.now(), webhookPolicy);
    checkSmsDestinations(ctx.state.auth!.destinations, [{ to: request.to, field: 'to' }]);
    const { deviceId, receipt, expiresAt } = await sendSms(up, ctx.state.auth!, request, {
      deviceId: ctx.get('x-device-id') || undefined,
      presence: ctx.state.presence,
      idempotency: ctx.state.idempotency,
    });
    // Stored by an earlier request with this Idempotency-Key (its answer was lost): that message.
    if (receipt.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = sendBody(request.to, deviceId, receipt, expiresAt, request.sim);
  });

  router.get('/v1/sms/status/:message_id', auth, allow('read', 'send'), guard, async (ctx) => {
    ctx.body = statusBody(await messageStatus(up, ctx.state.auth!, messageIdParam(ctx)));
  });

  return router;
}
