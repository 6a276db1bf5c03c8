import { signInCounter, signInKeys, type SignInDeps } from './sign-in.use-case';

export type Confirmation = 'confirmed' | 'wrong' | 'throttled';

/**
 * Whether `password` is the signed-in user's, checked by the account service as
 * at sign-in: the re-authentication that sensitive actions ask for, so that a
 * session left open or stolen cannot reveal secrets, mint keys or redirect alerts alone.
 * Wrong tries count with the failed sign-ins of the address and the e-mail, and past
 * their limit the password is not even checked.
 */
export async function confirmPassword(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  ip: string,
  user: { userId: string; email: string },
  password: string,
): Promise<Confirmation> {
  const counter = signInCounter(deps);
  const keys = signInKeys(ip, user.email);
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
