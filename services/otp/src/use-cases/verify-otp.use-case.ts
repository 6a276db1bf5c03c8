import { AppError, counter } from '@smsgw/platform';
import type { Mode } from '../data/otp.repository';
import { codeMatches } from '../domain/otp-code';
import { verifyOutcome, type VerifyOutcome } from '../domain/otp-verify';
import { countVerified } from './otp-guard.use-case';
import type { OtpService } from './otp-service';

const verifications = counter('otp.verifications', 'OTP verifications, by outcome (valid, wrong_code, or the error code)');

/** A verify's answer: valid (when), or how many attempts remain. */
export type Verified = { valid: true; verifiedAt: Date } | { valid: false; attemptsRemaining: number };

/** One verify, all its rules in one atomic step of the repository. */
async function verify(service: OtpService, clientId: string, mode: Mode, otpId: string, code: string): Promise<Verified> {
  const { repo, hashKey, log } = service;
  if (!otpId) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'otp_id', code: 'VALIDATION_ERROR' }] });
  if (!code) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'code', code: 'VALIDATION_ERROR' }] });
  const verified = await repo.verify<VerifyOutcome>(clientId, mode, otpId, (row) => {
    const outcome = verifyOutcome(
      { attempts: row.attempts, verified: row.verified_at !== null, expired: row.expired },
      codeMatches(hashKey, row.otp_id, code, row.code_hash),
    );
    return { decision: outcome.valid ? 'verify' : 'wrong', result: outcome };
  });
  if (!verified) throw new AppError('OTP_NOT_FOUND');
  const { result, row } = verified;
  log.debug({ otp_id: row.otp_id, valid: result.valid, attempts: row.attempts }, 'OTP verify');
  // The pumping guard counts the conversion of its prefix and country.
  if (result.valid) await countVerified(service, row);
  return result.valid ? { valid: true, verifiedAt: row.verified_at! } : { valid: false, attemptsRemaining: result.attemptsRemaining };
}

/** Checks a code against an OTP of the client, counting every outcome. */
export async function verifyOtp(service: OtpService, clientId: string, mode: Mode, otpId: string, code: string): Promise<Verified> {
  try {
    const answer = await verify(service, clientId, mode, otpId, code);
    verifications.add(1, { outcome: answer.valid ? 'valid' : 'wrong_code' });
    return answer;
  } catch (err) {
    verifications.add(1, { outcome: err instanceof AppError ? err.code : 'INTERNAL_ERROR' });
    throw err;
  }
}
