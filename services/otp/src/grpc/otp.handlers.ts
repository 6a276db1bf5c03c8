import { modeFromProto, type Callers } from '@smsgw/platform';
import type { AsyncHandlers, Logger, PromiseClient } from '@smsgw/platform';
import type { message, otp } from '@smsgw/proto';
import type { OtpRepository } from '../data/otp.repository';
import type { OtpRateLimit } from '../data/rate-limit.store';
import type { OtpService } from '../use-cases/otp-service';
import { sendOtp } from '../use-cases/send-otp.use-case';
import { verifyOtp } from '../use-cases/verify-otp.use-case';
import { MessageSms } from './message-sms.client';

export interface OtpDeps {
  repo: OtpRepository;
  rateLimit: OtpRateLimit;
  messages: PromiseClient<message.MessageServiceClient>;
  hashKey: Buffer;
  /** Seals an OTP's SMS text while its SMS is not known to be stored. */
  sealKey: Buffer;
  /** How long a send-otp Idempotency-Key answers the OTP it made. */
  idempotencyTtlSeconds: number;
  log: Logger;
}

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const otpCallers: Callers<otp.OtpServiceHandlers> = {
  SendOtp: ['gateway'],
  VerifyOtp: ['gateway'],
};

/** The gRPC methods of `smsgw.otp.v1.OtpService`: each reads its request, runs one use case, maps the answer. */
export function otpHandlers({ messages, ...deps }: OtpDeps): AsyncHandlers<otp.OtpServiceHandlers> {
  const service: OtpService = { ...deps, sms: new MessageSms(messages) };
  return {
    async SendOtp(req) {
      return sendOtp(service, { ...req, mode: modeFromProto(req.mode) });
    },

    async VerifyOtp(req) {
      const answer = await verifyOtp(service, req.clientId, modeFromProto(req.mode), req.otpId, req.code);
      return answer.valid
        ? { valid: true, verifiedAt: answer.verifiedAt.toISOString(), attemptsRemaining: 0 }
        : { valid: false, verifiedAt: '', attemptsRemaining: answer.attemptsRemaining };
    },
  };
}
