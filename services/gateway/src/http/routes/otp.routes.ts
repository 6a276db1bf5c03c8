import Router from '@koa/router';
import { modeToProto } from '@smsgw/platform';
import type { otp } from '@smsgw/proto';
import { chooseDevice, type Upstreams } from '../../use-cases';
import { parseSendOtpRequest, parseVerifyOtpRequest } from '../../domain/otp-request';
import type { GatewayMiddleware, GatewayState } from '../context';
import { jsonBody } from '../middleware/json-body';
import { outcomeUnknown } from '../../send-coalescer';


/**
 * The one-time password endpoints. send-otp is a sending endpoint (device,
 * Idempotency-Key); verify-otp needs only the key and the client.
 */
export function otpRoutes(up: Upstreams, auth: GatewayMiddleware, guard: GatewayMiddleware, idempotent: GatewayMiddleware): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/v1/sms/send-otp', auth, guard, jsonBody, idempotent, async (ctx) => {
    const session = ctx.state.auth!;
    const request = parseSendOtpRequest(ctx.state.body!);
    const device = await chooseDevice(up, session, ctx.get('x-device-id') || undefined);
    let sent: otp.SendOtpResponse__Output;
    try {
      sent = await up.otp.sendOtp({
        clientId: session.clientId,
        mode: modeToProto(session.mode),
        deviceId: device.deviceId,
        to: request.to,
        length: request.length,
        expirySeconds: request.expirySeconds,
        template: request.template ?? '',
        metadataJson: request.metadata ? JSON.stringify(request.metadata) : '',
        idempotencyKey: ctx.state.idempotency?.key ?? '',
        requestHash: ctx.state.idempotency?.requestHash ?? '',
      });
    } catch (err) {
      // Out of time: the otp service may have made the OTP and stored its SMS; it keeps them for a retry with the same key.
      throw outcomeUnknown(err);
    }
    // Made by an earlier request with this Idempotency-Key (its answer was lost): that OTP.
    if (sent.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = { success: true, otp_id: sent.otpId, to: sent.to, expires_at: sent.expiresAt, message_id: sent.messageId, status: sent.status };
  });

  router.post('/v1/sms/verify-otp', auth, guard, jsonBody, async (ctx) => {
    const session = ctx.state.auth!;
    const request = parseVerifyOtpRequest(ctx.state.body!);
    const result = await up.otp.verifyOtp({ clientId: session.clientId, mode: modeToProto(session.mode), otpId: request.otpId, code: request.code });
    ctx.body = result.valid
      ? { success: true, valid: true, message: 'Code vérifié avec succès.', verified_at: result.verifiedAt }
      : {
          success: true,
          valid: false,
          message: `Code incorrect : ${result.attemptsRemaining} tentative${result.attemptsRemaining > 1 ? 's' : ''} restante${result.attemptsRemaining > 1 ? 's' : ''}.`,
          attempts_remaining: result.attemptsRemaining,
        };
  });

  return router;
}
