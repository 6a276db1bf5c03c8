import Router from '@koa/router';
import { parseSendOtpRequest, parseVerifyOtpRequest } from '../../domain/otp-request';
import { otpStatsBody, sendOtpBody, verifyOtpBody } from '../../mappers/otp.mapper';
import { otpStatistics, sendOtp, verifyOtp } from '../../use-cases/otp.use-case';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware, GatewayState } from '../context';
import { allow } from '../middleware/scopes';
import { jsonBody } from '../middleware/json-body';
import { askPresence } from '../middleware/presence';
import { statsQuery } from '../query';

/**
 * The one-time password endpoints. send-otp is a sending endpoint (device,
 * Idempotency-Key); verify-otp and the statistics need only the key and the client.
 */
export function otpRoutes(
  up: Upstreams,
  auth: GatewayMiddleware,
  guard: GatewayMiddleware,
  idempotent: GatewayMiddleware,
): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/v1/sms/send-otp', auth, allow('otp'), askPresence(up), guard, jsonBody, idempotent, async (ctx) => {
    const request = parseSendOtpRequest(ctx.state.body!);
    const sent = await sendOtp(up, ctx.state.auth!, request, {
      deviceId: ctx.get('x-device-id') || undefined,
      presence: ctx.state.presence,
      idempotency: ctx.state.idempotency,
    });
    // Made by an earlier request with this Idempotency-Key (its answer was lost): that OTP.
    if (sent.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = sendOtpBody(sent);
  });

  router.post('/v1/sms/verify-otp', auth, allow('otp'), guard, jsonBody, async (ctx) => {
    const request = parseVerifyOtpRequest(ctx.state.body!);
    ctx.body = verifyOtpBody(await verifyOtp(up, ctx.state.auth!, request));
  });

  router.get('/v1/otp/stats', auth, allow('otp', 'read'), guard, async (ctx) => {
    const query = statsQuery(ctx);
    ctx.body = otpStatsBody(await otpStatistics(up, ctx.state.auth!, query));
  });

  return router;
}
