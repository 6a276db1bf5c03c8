import { confirmPassword, type Confirmation, type Reauthentication } from './confirm-password.use-case';
import type { SignInDeps } from './sign-in.use-case';
import type { Upstreams } from './upstreams';

/** A new TOTP secret for the member to scan or type. */
export async function beginEnrolment(up: Upstreams, userId: string): Promise<{ secret: string; otpauthUri: string }> {
  return up.accounts.beginTotpEnrolment({ userId });
}

/** The enrolment confirmed by a code of the app: its recovery codes (none: the code was wrong, nothing changed). */
export async function confirmEnrolment(up: Upstreams, userId: string, code: string, address: string | undefined): Promise<string[]> {
  const { recoveryCodes } = await up.accounts.confirmTotpEnrolment({ userId, code: code.slice(0, 40), actorAddress: address ?? '' });
  return recoveryCodes;
}

/** Turns the member's second factor off, after its password and a code (or a recovery code) asked again. */
export async function disableTwoFactor(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  user: { userId: string; email: string },
  reauth: Reauthentication,
): Promise<Confirmation> {
  const confirmation = await confirmPassword(deps, user, reauth);
  if (confirmation !== 'confirmed') return confirmation;
  await deps.up.accounts.disableTwoFactor({ userId: user.userId, code: '', actorAddress: reauth.address ?? '', confirm: true });
  return 'confirmed';
}
