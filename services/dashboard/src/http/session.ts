import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '@smsgw/platform';

export interface Session {
  userId: string;
  clientId: string;
  email: string;
  /** The synchronizer token every form of this session carries. */
  csrf: string;
  createdAt: string;
}

const key = (token: string) => `dashboard:session:${createHash('sha256').update(token).digest('hex')}`;
const userKey = (userId: string) => `dashboard:user-sessions:${userId}`;

export interface SessionTimes {
  /** A session ends this long after its last request. */
  idleMs: number;
  /** A session ends this long after its sign-in, however busy. */
  lifetimeMs: number;
}

/**
 * Browser sessions, server-side in Redis: the cookie holds a random token,
 * Redis its SHA-256 with the session, which ends after `idleMs` without a
 * request, `lifetimeMs` after sign-in, at sign-out, or when the user's
 * sessions are revoked (a password change ends the others).
 *
 * Each user has an index of their session keys. It must outlive every session
 * it lists, or a revocation misses the ones it forgot: sessions never outlive
 * their lifetime, so the index lives a lifetime from the user's latest sign-in.
 */
export class SessionStore {
  private readonly idleMs: number;
  private readonly lifetimeMs: number;

  constructor(
    private readonly redis: Redis,
    times: SessionTimes,
  ) {
    this.idleMs = times.idleMs;
    this.lifetimeMs = times.lifetimeMs;
  }

  async create(user: { userId: string; clientId: string; email: string }): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const session: Session = { ...user, csrf: randomBytes(24).toString('base64url'), createdAt: new Date().toISOString() };
    await this.redis
      .multi()
      .set(key(token), JSON.stringify(session), 'PX', Math.min(this.idleMs, this.lifetimeMs))
      .sadd(userKey(user.userId), key(token))
      .pexpire(userKey(user.userId), this.lifetimeMs)
      .exec();
    return { token, session };
  }

  /** The session of a token, its idle time restarted; undefined when unknown or ended. */
  async get(token: string): Promise<Session | undefined> {
    if (!token || token.length > 100) return undefined;
    // One round trip: read it and restart its idle time (GETEX, Redis 6.2+).
    const text = await this.redis.getex(key(token), 'PX', this.idleMs);
    if (!text) return undefined;
    const session = JSON.parse(text) as Session;
    const left = Date.parse(session.createdAt) + this.lifetimeMs - Date.now();
    if (!(left > 0)) {
      await this.redis.del(key(token));
      return undefined;
    }
    // In its last idle time, a session is kept no longer than its lifetime.
    if (left < this.idleMs) await this.redis.pexpire(key(token), left);
    return session;
  }

  async end(token: string): Promise<void> {
    await this.redis.del(key(token));
  }

  /** Ends every session of the user but `keepToken`'s. */
  async endOthers(userId: string, keepToken: string): Promise<void> {
    // The set holds session keys as values (unprefixed); del() prefixes them as it does every key.
    const others = (await this.redis.smembers(userKey(userId))).filter((k) => k !== key(keepToken));
    if (others.length === 0) return;
    await this.redis.del(...others);
    await this.redis.srem(userKey(userId), ...others);
  }

  /** Ends every session of the user (a password reset). */
  async endAll(userId: string): Promise<void> {
    const all = await this.redis.smembers(userKey(userId));
    if (all.length > 0) await this.redis.del(...all);
    await this.redis.del(userKey(userId));
  }
}
