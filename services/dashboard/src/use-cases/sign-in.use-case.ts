import { createHash, randomBytes } from 'node:crypto';
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

export type SignInOutcome =
  | { outcome: 'throttled' }
  | { outcome: 'refused' }
  | { outcome: 'signed-in'; token: string }
  /** The password was right; the second factor is asked next, under this token (pendingSignIn). */
  | { outcome: 'second-factor'; pending: string };

/** A sign-in waiting for its second factor lasts this long. */
const PENDING_MS = 5 * 60_000;
const pendingKey = (token: string) => `dashboard:signin-pending:${createHash('sha256').update(token).digest('hex')}`;

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
  const user = await deps.up.accounts.signIn({ email, password, actorAddress: ip ?? '' }).catch(async (err: unknown) => {
    await counter.refund(...keys);
    throw err;
  });
  if (!user.userId) return { outcome: 'refused' };
  await counter.refund(...keys);
  const who = { userId: user.userId, clientId: user.clientId, email: user.email };
  if (user.twoFactor) {
    // The password is right: nothing is opened until the second factor is too.
    const pending = randomBytes(32).toString('base64url');
    await deps.redis.set(pendingKey(pending), JSON.stringify(who), 'PX', PENDING_MS);
    return { outcome: 'second-factor', pending };
  }
  const { token } = await deps.sessions.create(who);
  return { outcome: 'signed-in', token };
}

/**
 * The second step of a sign-in: the code of the member's authenticator app (or a recovery code).
 * Wrong codes count with the e-mail's failed sign-ins; 'expired' when the first step is too old.
 */
export async function completeSignIn(
  deps: SignInDeps,
  ip: string | undefined,
  pending: string,
  code: string,
): Promise<{ outcome: 'expired' } | { outcome: 'throttled' } | { outcome: 'refused' } | { outcome: 'signed-in'; token: string }> {
  const text = pending && pending.length <= 100 ? await deps.redis.get(pendingKey(pending)) : null;
  if (!text) return { outcome: 'expired' };
  const who = JSON.parse(text) as { userId: string; clientId: string; email: string };
  const counter = signInCounter(deps);
  const keys = signInKeys(ip, who.email);
  if (!(await counter.take(keys, deps.signIn.maxFailures)).allowed) return { outcome: 'throttled' };
  const { valid } = await deps.up.accounts
    .verifySecondFactor({ userId: who.userId, code: code.slice(0, 40), actorAddress: ip ?? '', confirm: false })
    .catch(async (err: unknown) => {
      await counter.refund(...keys);
      throw err;
    });
  if (!valid) return { outcome: 'refused' };
  await counter.refund(...keys);
  await deps.redis.del(pendingKey(pending));
  const { token } = await deps.sessions.create(who);
  return { outcome: 'signed-in', token };
}

export async function signOut(sessions: SessionStore, token: string): Promise<void> {
  await sessions.end(token);
}
