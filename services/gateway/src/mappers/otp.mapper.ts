import { modeToProto } from '@smsgw/platform';
import type { otp } from '@smsgw/proto';
import type { SendOtpRequest, VerifyOtpRequest } from '../domain/otp-request';
import type { AuthContext } from '../http/context';
import type { IdempotencyFields, Routing } from './sms.mapper';

/** The OTP endpoints' translations: checked bodies to the otp service's requests, its answers to the API's bodies. */

export function toSendOtpRequest(
  auth: AuthContext,
  routing: Routing,
  request: SendOtpRequest,
  idempotency: IdempotencyFields | undefined,
): otp.SendOtpRequest {
  const { deviceId, pinned } = routing;
  return {
    clientId: auth.clientId,
    mode: modeToProto(auth.mode),
    deviceId,
    to: request.to,
    length: request.length,
    expirySeconds: request.expirySeconds,
    template: request.template ?? '',
    metadataJson: request.metadata ? JSON.stringify(request.metadata) : '',
    idempotencyKey: idempotency?.key ?? '',
    requestHash: idempotency?.requestHash ?? '',
    pinned,
    sim: request.sim ?? 0,
    endUserKey: request.endUserKey ?? '',
    fallbackAfterSeconds: request.fallbackAfterSeconds ?? 0,
  };
}

export function toVerifyOtpRequest(auth: AuthContext, request: VerifyOtpRequest): otp.VerifyOtpRequest {
  return { clientId: auth.clientId, mode: modeToProto(auth.mode), otpId: request.otpId, code: request.code };
}

export function sendOtpBody(sent: otp.SendOtpResponse__Output): Record<string, unknown> {
  return { success: true, otp_id: sent.otpId, to: sent.to, expires_at: sent.expiresAt, message_id: sent.messageId, status: sent.status };
}

export function verifyOtpBody(result: otp.VerifyOtpResponse__Output): Record<string, unknown> {
  return result.valid
    ? { success: true, valid: true, message: 'Code vérifié avec succès.', verified_at: result.verifiedAt }
    : {
        success: true,
        valid: false,
        message: `Code incorrect : ${result.attemptsRemaining} tentative${result.attemptsRemaining > 1 ? 's' : ''} restante${result.attemptsRemaining > 1 ? 's' : ''}.`,
        attempts_remaining: result.attemptsRemaining,
      };
}

/** GET /v1/otp/stats's body: shaped as /v1/sms/stats's (`success`, `period`, `stats`). */
export function otpStatsBody(stats: otp.GetOtpStatsResponse__Output): Record<string, unknown> {
  return {
    success: true,
    period: { from: stats.from, to: stats.to },
    stats: {
      sent: stats.sent,
      verified: stats.verified,
      expired: stats.expired,
      failed_attempts: stats.failedAttempts,
      conversion_rate: stats.conversionRate,
      by_day: stats.byDay.map((d) => ({ date: d.date, sent: d.sent, verified: d.verified })),
      by_country: stats.byCountry.map((c) => ({ country: c.country, sent: c.sent, verified: c.verified })),
    },
  };
}
