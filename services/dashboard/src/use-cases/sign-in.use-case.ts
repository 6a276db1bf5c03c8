import { createHash } from 'node:crypto';
import { FixedWindowCounter, type Redis } from '@smsgw/platform';
import type { SessionStore } from '../http/session';
import type { Upstreams } from './upstreams';

export interface SignInDeps {
  up: Upstreams;
  sessions: SessionStore;
  redis: Redis;
  signIn: { maxFailures: number; windowMs: number };
}

/** A new account and its first session: the session's token, and the account's client. */
export async function signUp(
  deps: SignInDeps,
  form: { email: string; password: string; name: string },
): Promise<{ token: string; clientId: string }> {
  const created = await deps.up.accounts.signUp(form);
  const { token } = await deps.sessions.create({
    userId: created.user!.userId,
    clientId: created.user!.clientId,
    email: created.user!.email,
  });
  return { token, clientId: created.user!.clientId };
}

/** The key of the failed sign-ins for an e-mail (hashed: no address in Redis's keys). */
export const signInEmailKey = (email: string) => `dashboard:signin:email:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`;

/**
 * The keys of the failed sign-ins of an address and of an e-mail. An address a trusted proxy hid
 * is everyone's: only the e-mail's count applies then.
 */
function signInKeys(ip: string | undefined, email: string): string[] {
  return ip === undefined ? [signInEmailKey(email)] : [`dashboard:signin:ip:${ip}`, signInEmailKey(email)];
}

export type SignInOutcome = { outcome: 'throttled' } | { outcome: 'refused' } | { outcome: 'signed-in'; token: string };

/**
 * A sign-in from `ip`: refused while the address or the e-mail has failed too often. Each attempt
 * is checked and counted in one step, and given back when it turns out right or the account
 * service could not answer, so attempts sent at once cannot all pass.
 */
export const signInCounter = (deps: Pick<SignInDeps, 'redis' | 'signIn'>) =>
  new FixedWindowCounter(deps.redis, { windowMs: deps.signIn.windowMs });

export async function signIn(deps: SignInDeps, ip: string | undefined, email: string, password: string): Promise<SignInOutcome> {
  const counter = signInCounter(deps);
  const keys = signInKeys(ip, email);
  if (!(await counter.take(keys, deps.signIn.maxFailures)).allowed) return { outcome: 'throttled' };
  const user = await deps.up.accounts.signIn({ email, password }).catch(async (err: unknown) => {
    await counter.refund(...keys);
    throw err;
  });
  if (!user.userId) return { outcome: 'refused' };
  await counter.refund(...keys);
  const { token } = await deps.sessions.create({ userId: user.userId, clientId: user.clientId, email: user.email });
  return { outcome: 'signed-in', token };
}

export async function signOut(sessions: SessionStore, token: string): Promise<void> {
  await sessions.end(token);
}
