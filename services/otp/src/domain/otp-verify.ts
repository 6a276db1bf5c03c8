import { AppError } from '@smsgw/platform';

export const MAX_ATTEMPTS = 3;

export interface OtpState {
  attempts: number;
  verified: boolean;
  expired: boolean;
}

export type VerifyOutcome = { valid: true } | { valid: false; attemptsRemaining: number };

/**
 * The rules of a verify, in order: an OTP already verified (409), spent by
 * 3 wrong codes (410, even with the right code now), expired (410); then the
 * right code verifies it, a wrong one uses an attempt (the third still
 * answers `valid: false` with 0 remaining).
 */
export function verifyOutcome(state: OtpState, matches: boolean): VerifyOutcome {
  if (state.verified) throw new AppError('OTP_ALREADY_VERIFIED');
  if (state.attempts >= MAX_ATTEMPTS) throw new AppError('OTP_MAX_ATTEMPTS');
  if (state.expired) throw new AppError('OTP_EXPIRED');
  if (matches) return { valid: true };
  return { valid: false, attemptsRemaining: MAX_ATTEMPTS - (state.attempts + 1) };
}
