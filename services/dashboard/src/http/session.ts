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

/**
 * Browser sessions, server-side in Redis: the cookie holds a random token,
 * Redis its SHA-256 with the session, which ends after `idleMs` without a
 * request, at sign-out, or when the user's sessions are revoked (a password
 * change ends the others).
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly idleMs: number,
  ) {}

  async create(user: { userId: string; clientId: string; email: string }): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const session: Session = { ...user, csrf: randomBytes(24).toString('base64url'), createdAt: new Date().toISOString() };
    await this.redis
      .multi()
      .set(key(token), JSON.stringify(session), 'PX', this.idleMs)
      .sadd(userKey(user.userId), key(token))
      .pexpire(userKey(user.userId), this.idleMs)
      .exec();
    return { token, session };
  }

  /** The session of a token, its idle time restarted; undefined when unknown or ended. */
  async get(token: string): Promise<Session | undefined> {
    if (!token || token.length > 100) return undefined;
    // One round trip: read it and restart its idle time (GETEX, Redis 6.2+).
    const text = await this.redis.getex(key(token), 'PX', this.idleMs);
    return text ? (JSON.parse(text) as Session) : undefined;
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
}
