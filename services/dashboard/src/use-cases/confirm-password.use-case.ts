import { signInCounter, signInEmailKey, type SignInDeps } from './sign-in.use-case';

export type Confirmation = 'confirmed' | 'wrong' | 'throttled';

/**
 * Whether `password` is the signed-in user's, checked by the account service as
 * at sign-in: the re-authentication that sensitive actions ask for, so that a
 * session left open or stolen cannot reveal secrets, mint keys or redirect alerts alone.
 * Wrong tries count with the failed sign-ins of the user's e-mail, and past their
 * limit the password is not even checked (nor can sign-in guess it meanwhile).
 */
export async function confirmPassword(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  user: { userId: string; email: string },
  password: string,
): Promise<Confirmation> {
  const counter = signInCounter(deps);
  // The session says whose password is guessed: its e-mail's count, which sign-in also reads.
  const keys = [signInEmailKey(user.email)];
  if (!(await counter.take(keys, deps.signIn.maxFailures)).allowed) return 'throttled';
  if (!password) return 'wrong';
  const found = await deps.up.accounts.signIn({ email: user.email, password }).catch(async (err: unknown) => {
    await counter.refund(...keys);
    throw err;
  });
  if (!found.userId || found.userId !== user.userId) return 'wrong';
  await counter.refund(...keys);
  return 'confirmed';
}
