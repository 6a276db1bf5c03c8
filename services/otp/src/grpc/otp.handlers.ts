import { AppError, newId, type AsyncHandlers, type Logger, type PromiseClient } from '@smsgw/platform';
import type { message, otp } from '@smsgw/proto';
import type { Mode, OtpRepository } from '../data/otp.repository';
import type { OtpRateLimit } from '../data/rate-limit.store';
import { codeMatches, hashCode, numberKey, randomCode, testCode } from '../domain/otp-code';
import { otpOptions, renderText } from '../domain/otp-text';
import { verifyOutcome, type VerifyOutcome } from '../domain/otp-verify';

function modeOf(mode: string): Mode {
  return mode === 'MODE_TEST' ? 'test' : 'live';
}

export interface OtpDeps {
  repo: OtpRepository;
  rateLimit: OtpRateLimit;
  messages: PromiseClient<message.MessageServiceClient>;
  hashKey: Buffer;
  log: Logger;
}

export function otpHandlers({ repo, rateLimit, messages, hashKey, log }: OtpDeps): AsyncHandlers<otp.OtpServiceHandlers> {
  return {
    async SendOtp(req) {
      const mode = modeOf(req.mode);
      if (!req.deviceId) throw new AppError('INVALID_DEVICE_ID');
      if (!req.to) throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'to', code: 'INVALID_PHONE_NUMBER' }] });
      const options = otpOptions({ length: req.length, expirySeconds: req.expirySeconds, template: req.template });
      const slot = await rateLimit.take(req.clientId, mode, numberKey(hashKey, req.to));
      if (!slot.allowed) throw new AppError('OTP_RATE_LIMITED', { retryAfterSeconds: slot.retryAfterSeconds });

      const otpId = newId('otp');
      const code = mode === 'test' ? testCode(options.length) : randomCode(options.length);
      const expiresAt = new Date(Date.now() + options.expirySeconds * 1000);
      const { text, masked } = renderText(options.template, code);
      let stored = false;
      try {
        // Stored before the SMS leaves, so that a code read at once can be verified.
        await repo.insert({ otpId, clientId: req.clientId, mode, codeHash: hashCode(hashKey, otpId, code), expiresAt });
        stored = true;
        const sent = await messages.sendOtpMessage({
          clientId: req.clientId,
          mode: req.mode,
          deviceId: req.deviceId,
          to: req.to,
          text,
          maskedText: masked,
          metadataJson: req.metadataJson,
          expiresAt: expiresAt.toISOString(),
        });
        const messageId = sent.message!.messageId;
        await repo.setMessage(otpId, messageId);
        log.debug({ otp_id: otpId, message_id: messageId }, 'OTP sent');
        return { otpId, to: req.to, expiresAt: expiresAt.toISOString(), messageId, status: sent.message!.status };
      } catch (err) {
        // Nothing was given to the caller: the OTP does not count against the number.
        await Promise.all([slot.release(), stored ? repo.delete(otpId) : undefined]).catch((cleanup: unknown) =>
          log.warn({ err: cleanup, otp_id: otpId }, 'cleaning up a failed OTP failed'),
        );
        throw err;
      }
    },

    async VerifyOtp(req) {
      if (!req.otpId) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'otp_id', code: 'VALIDATION_ERROR' }] });
      if (!req.code) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'code', code: 'VALIDATION_ERROR' }] });
      const verified = await repo.verify<VerifyOutcome>(req.clientId, modeOf(req.mode), req.otpId, (row) => {
        const outcome = verifyOutcome(
          { attempts: row.attempts, verified: row.verified_at !== null, expired: row.expired },
          codeMatches(hashKey, row.otp_id, req.code, row.code_hash),
        );
        return { decision: outcome.valid ? 'verify' : 'wrong', result: outcome };
      });
      if (!verified) throw new AppError('OTP_NOT_FOUND');
      const { result, row } = verified;
      log.debug({ otp_id: row.otp_id, valid: result.valid, attempts: row.attempts }, 'OTP verify');
      return result.valid
        ? { valid: true, verifiedAt: row.verified_at!.toISOString(), attemptsRemaining: 0 }
        : { valid: false, verifiedAt: '', attemptsRemaining: result.attemptsRemaining };
    },
  };
}
