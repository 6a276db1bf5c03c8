import type { Upstreams } from './upstreams';

/**
 * Whether `password` is the signed-in user's, checked by the account service as
 * at sign-in: the re-authentication that sensitive actions ask for, so that a
 * session left open or stolen cannot reveal secrets, mint keys or redirect alerts alone.
 */
export async function confirmPassword(up: Upstreams, user: { userId: string; email: string }, password: string): Promise<boolean> {
  if (!password) return false;
  const found = await up.accounts.signIn({ email: user.email, password });
  return Boolean(found.userId) && found.userId === user.userId;
}
