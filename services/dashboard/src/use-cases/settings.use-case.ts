import type { Confirmation } from './confirm-password.use-case';
import { signInCounter, signInEmailKey, type SignInDeps } from './sign-in.use-case';
import type { Upstreams } from './upstreams';

export async function signingSecret(up: Upstreams, clientId: string): Promise<string> {
  return (await up.accounts.getSigningSecret({ clientId })).secret;
}

/** A new signing secret: the new one. */
export async function rotateSigningSecret(up: Upstreams, clientId: string): Promise<string> {
  return (await up.accounts.rotateSigningSecret({ clientId })).secret;
}

export async function changeAlertEmail(up: Upstreams, clientId: string, email: string): Promise<void> {
  await up.accounts.updateClient({ clientId, email, name: '' });
}

/**
 * A password change; the user's other sessions end. A wrong current password counts with the
 * failed sign-ins of the user's e-mail; past their limit it is not even checked.
 */
export async function changePassword(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn' | 'sessions'>,
  user: { userId: string; email: string; token: string },
  passwords: { current: string; next: string },
): Promise<Confirmation> {
  const counter = signInCounter(deps);
  // The session says whose password is guessed: its e-mail's count, which sign-in also reads.
  const keys = [signInEmailKey(user.email)];
  if (!(await counter.take(keys, deps.signIn.maxFailures)).allowed) return 'throttled';
  const { changed } = await deps.up.accounts
    .changePassword({ userId: user.userId, currentPassword: passwords.current, newPassword: passwords.next })
    .catch(async (err: unknown) => {
      // A refused new password (its current one was right) or an unanswered call: not a wrong guess.
      await counter.refund(...keys);
      throw err;
    });
  if (!changed) return 'wrong';
  await counter.refund(...keys);
  await deps.sessions.endOthers(user.userId, user.token);
  return 'confirmed';
}
