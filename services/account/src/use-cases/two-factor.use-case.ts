import { AppError } from '@smsgw/platform';
import type { AccountRepository, UserRow } from '../data/account.repository';
import type { AuditRepository } from '../data/audit.repository';
import type { TwoFactorRepository } from '../data/two-factor.repository';
import { base32, matchingStep, newRecoveryCodes, newTotpSecret, otpauthUri, recoveryCodeHash } from '../domain/totp';

export interface TwoFactorRepos {
  repo: AccountRepository;
  audit: AuditRepository;
  twoFactor: TwoFactorRepository;
}

/** The name authenticator apps show the codes under. */
const ISSUER = 'SMS Gateway';

async function member(repo: AccountRepository, userId: string): Promise<UserRow> {
  const user = userId ? await repo.findUser(userId) : undefined;
  if (!user) throw new AppError('NOT_FOUND');
  return user;
}

const recorded = (user: UserRow, address: string) => ({ actorUserId: user.user_id, actor: user.email, address: address.slice(0, 100) });

/** A new TOTP secret to enrol with (its base32 text and otpauth URI); FAILED_PRECONDITION while one is in use. */
export async function beginTotpEnrolment(
  { repo, twoFactor }: TwoFactorRepos,
  userId: string,
): Promise<{ secret: string; otpauthUri: string }> {
  const user = await member(repo, userId);
  const secret = newTotpSecret();
  if (!(await twoFactor.beginEnrolment(user.user_id, secret))) {
    throw new AppError('VALIDATION_ERROR', {
      details: [{ field: 'user_id', code: 'TWO_FACTOR_ENABLED', message: 'La double authentification est déjà active.' }],
    });
  }
  return { secret: base32(secret), otpauthUri: otpauthUri(secret, user.email, ISSUER) };
}

/** The enrolment confirmed by a code of the app: its recovery codes, shown once; none when the code is wrong. */
export async function confirmTotpEnrolment(
  { repo, twoFactor }: TwoFactorRepos,
  request: { userId: string; code: string; address: string },
  now = Date.now(),
): Promise<string[]> {
  const user = await member(repo, request.userId);
  if (!user.totp_secret || user.totp_enabled_at) return [];
  const step = matchingStep(user.totp_secret, request.code, now, Number(user.totp_last_step));
  if (step === undefined) return [];
  const codes = newRecoveryCodes();
  const user_ = { userId: user.user_id, clientId: user.client_id, email: user.email };
  const enabled = await twoFactor.enable(user_, step, codes.map(recoveryCodeHash), recorded(user, request.address));
  return enabled ? codes : [];
}

/**
 * A second factor: a TOTP code (each step taken once) or a recovery code (each used once). A
 * sign-in it completes, or a wrong code, goes to the audit log (a code asked again, `confirm`,
 * only when wrong).
 */
export async function verifySecondFactor(
  { repo, audit, twoFactor }: TwoFactorRepos,
  request: { userId: string; code: string; address: string; confirm: boolean },
  now = Date.now(),
): Promise<boolean> {
  const user = await member(repo, request.userId);
  if (!user.totp_secret || !user.totp_enabled_at) return false;
  const step = matchingStep(user.totp_secret, request.code, now, Number(user.totp_last_step));
  let how: 'totp' | 'recovery_code' | undefined;
  if (step !== undefined && (await twoFactor.takeStep(user.user_id, step))) how = 'totp';
  else if (
    /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(request.code.trim()) &&
    (await twoFactor.useRecoveryCode(user.user_id, recoveryCodeHash(request.code)))
  ) {
    how = 'recovery_code';
  }
  const event = { clientId: user.client_id, ...recorded(user, request.address), target: user.email };
  if (!how) {
    await audit.record({
      ...event,
      action: 'user.sign_in_failed',
      details: { second_factor: true, ...(request.confirm ? { confirm: true } : {}) },
    });
    return false;
  }
  if (!request.confirm) await audit.record({ ...event, action: 'user.signed_in', details: { second_factor: how } });
  return true;
}

/** Turns the member's second factor off (the dashboard asked for the password and a code first). */
export async function disableTwoFactor({ repo, twoFactor }: TwoFactorRepos, request: { userId: string; address: string }): Promise<void> {
  const user = await member(repo, request.userId);
  await twoFactor.disable({ userId: user.user_id, clientId: user.client_id, email: user.email }, recorded(user, request.address));
}

/** An owner requires (or no longer requires) a second factor of every member. */
export async function setTwoFactorRequired(
  { repo, twoFactor }: TwoFactorRepos,
  request: { clientId: string; required: boolean; userId: string; address: string },
): Promise<void> {
  const user = await member(repo, request.userId);
  if (user.client_id !== request.clientId) throw new AppError('NOT_FOUND');
  if (user.role !== 'owner') throw new AppError('ROLE_NOT_ALLOWED');
  await twoFactor.setRequired(request.clientId, request.required, recorded(user, request.address));
}
