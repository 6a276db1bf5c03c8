import { signInCounter, signInEmailKey, type SignInDeps } from './sign-in.use-case';

/** `code`: the password was right, the second factor wrong or missing. */
export type Confirmation = 'confirmed' | 'wrong' | 'throttled' | 'code';

/** What a sensitive action's form asks again: the password, and the authenticator's code of a member who has one. */
export interface Reauthentication {
  password: string;
  code: string;
  /** Where the form came from (the audit log of a wrong one). */
  address?: string;
}

/**
 * Whether `password` is the signed-in user's (and `code` its second factor's, when it has one),
 * checked by the account service as at sign-in: the re-authentication that sensitive actions ask for, so that a
 * session left open or stolen cannot reveal secrets, mint keys or redirect alerts alone.
 * Wrong tries count with the failed sign-ins of the user's e-mail, and past their
 * limit the password is not even checked (nor can sign-in guess it meanwhile).
 */
export async function confirmPassword(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  user: { userId: string; email: string },
  reauth: Reauthentication,
): Promise<Confirmation> {
  const { password, code } = reauth;
  const counter = signInCounter(deps);
  // The session says whose password is guessed: its e-mail's count, which sign-in also reads.
  const keys = [signInEmailKey(user.email)];
  if (!(await counter.take(keys, deps.signIn.maxFailures)).allowed) return 'throttled';
  if (!password) return 'wrong';
  const address = reauth.address ?? '';
  const refunded = async (err: unknown) => {
    await counter.refund(...keys);
    throw err;
  };
  const found = await deps.up.accounts.signIn({ email: user.email, password, actorAddress: address, confirm: true }).catch(refunded);
  if (!found.userId || found.userId !== user.userId) return 'wrong';
  if (found.twoFactor) {
    if (!code) return 'code';
    const { valid } = await deps.up.accounts
      .verifySecondFactor({ userId: user.userId, code: code.slice(0, 40), actorAddress: address, confirm: true })
      .catch(refunded);
    if (!valid) return 'code';
  }
  await counter.refund(...keys);
  return 'confirmed';
}
