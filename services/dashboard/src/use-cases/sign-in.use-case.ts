import { createHash } from 'node:crypto';
import type { Redis } from '@smsgw/platform';
import type { SessionStore } from '../http/session';
import type { Upstreams } from './upstreams';

export interface SignInDeps {
  up: Upstreams;
  sessions: SessionStore;
  redis: Redis;
  signIn: { maxFailures: number; windowMs: number };
}

/** A new account and its first session: the session's token. */
export async function signUp(deps: SignInDeps, form: { email: string; password: string; name: string }): Promise<string> {
  const created = await deps.up.accounts.signUp(form);
  const { token } = await deps.sessions.create({ userId: created.user!.userId, clientId: created.user!.clientId, email: created.user!.email });
  return token;
}

/** Counts a failed sign-in for the address and for the e-mail; true when either is past the limit. */
async function throttled(deps: SignInDeps, ip: string, email: string, count: boolean): Promise<boolean> {
  const { redis } = deps;
  const keys = [`dashboard:signin:ip:${ip}`, `dashboard:signin:email:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`];
  const counts = await Promise.all(
    keys.map(async (k) => {
      if (!count) return Number((await redis.get(k)) ?? 0);
      const n = await redis.incr(k);
      if (n === 1) await redis.pexpire(k, deps.signIn.windowMs);
      return n;
    }),
  );
  return counts.some((n) => n >= deps.signIn.maxFailures);
}

export type SignInOutcome = { outcome: 'throttled' } | { outcome: 'refused' } | { outcome: 'signed-in'; token: string };

/** A sign-in from `ip`: refused while the address or the e-mail has failed too often, counted when wrong. */
export async function signIn(deps: SignInDeps, ip: string, email: string, password: string): Promise<SignInOutcome> {
  if (await throttled(deps, ip, email, false)) return { outcome: 'throttled' };
  const user = await deps.up.accounts.signIn({ email, password });
  if (!user.userId) {
    await throttled(deps, ip, email, true);
    return { outcome: 'refused' };
  }
  const { token } = await deps.sessions.create({ userId: user.userId, clientId: user.clientId, email: user.email });
  return { outcome: 'signed-in', token };
}

export async function signOut(sessions: SessionStore, token: string): Promise<void> {
  await sessions.end(token);
}
