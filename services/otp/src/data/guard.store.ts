import type { Redis } from '@smsgw/platform';
import type { HoldScope, WindowCounts } from '../domain/otp-guard';

// One script per step, so that each is atomic across otp replicas and timed by Redis's own clock.
// Windows are sliding logs (sorted sets scored in milliseconds): `<scope>:s` the codes asked for,
// `<scope>:v` those verified, scored with the time their code was asked for, so that a window
// counts the conversion of the codes asked in it. A hold is a key that lives as long as the window.

// KEYS: hold of the prefix, hold of the country, the prefix's asked and verified, the country's.
// ARGV: window ms, member (the OTP id). A held scope records nothing.
const RECORD = `
local held_p = redis.call('PTTL', KEYS[1])
if held_p > 0 then return {1, held_p, 0, 0, 0, 0} end
local held_c = redis.call('PTTL', KEYS[2])
if held_c > 0 then return {2, held_c, 0, 0, 0, 0} end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[1])
local counts = {}
for i = 3, 6 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now_ms - window)
end
redis.call('ZADD', KEYS[3], now_ms, ARGV[2])
redis.call('ZADD', KEYS[5], now_ms, ARGV[2])
for i = 3, 6 do
  redis.call('PEXPIRE', KEYS[i], window)
  counts[#counts + 1] = redis.call('ZCARD', KEYS[i])
end
return {0, 0, counts[1], counts[2], counts[3], counts[4]}
`;

// KEYS: the prefix's and the country's verified logs. ARGV: window ms, member, when its code was asked (ms).
const VERIFIED = `
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[1])
local asked = tonumber(ARGV[3])
if asked <= now_ms - window then return 0 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], asked, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], window)
end
return 1
`;

const COMMANDS = {
  smsgwOtpGuardRecord: { numberOfKeys: 6, lua: RECORD },
  smsgwOtpGuardVerified: { numberOfKeys: 2, lua: VERIFIED },
} as const;

type Scripted = {
  smsgwOtpGuardRecord(...args: (string | number)[]): Promise<[number, number, number, number, number, number]>;
  smsgwOtpGuardVerified(...args: (string | number)[]): Promise<number>;
};

/** Where one OTP goes, as the guard's keys name it: the prefix by its keyed hash, never the number. */
export interface GuardTarget {
  clientId: string;
  mode: string;
  prefixKey: string;
  country: string;
}

export type Recorded = { held: HoldScope; retryAfterMs: number } | { held: undefined; prefix: WindowCounts; country: WindowCounts };

/** The pumping guard's windows and holds in Redis (keys `otp-guard:*` and `otp-hold:*`). */
export class GuardStore {
  constructor(private readonly redis: Redis) {
    for (const [name, definition] of Object.entries(COMMANDS)) {
      if (!(name in redis)) redis.defineCommand(name, definition);
    }
  }

  private scope(t: GuardTarget, scope: HoldScope): string {
    return scope === 'prefix' ? `${t.clientId}:${t.mode}:p:${t.prefixKey}` : `${t.clientId}:${t.mode}:c:${t.country}`;
  }

  private holdKey(t: GuardTarget, scope: HoldScope): string {
    return `otp-hold:${this.scope(t, scope)}`;
  }

  private windowKeys(t: GuardTarget, scope: HoldScope): [asked: string, verified: string] {
    const base = `otp-guard:${this.scope(t, scope)}`;
    return [`${base}:s`, `${base}:v`];
  }

  /** Counts one code asked for, unless its prefix or country is held: then how long the hold lasts. */
  async record(t: GuardTarget, otpId: string, windowMs: number): Promise<Recorded> {
    const [held, ttl, pAsked, pVerified, cAsked, cVerified] = await (this.redis as unknown as Scripted).smsgwOtpGuardRecord(
      this.holdKey(t, 'prefix'),
      this.holdKey(t, 'country'),
      ...this.windowKeys(t, 'prefix'),
      ...this.windowKeys(t, 'country'),
      windowMs,
      otpId,
    );
    if (held !== 0) return { held: held === 1 ? 'prefix' : 'country', retryAfterMs: ttl };
    return { held: undefined, prefix: { requests: pAsked, verified: pVerified }, country: { requests: cAsked, verified: cVerified } };
  }

  /** Takes back a code counted for an OTP that was never sent. */
  async unrecord(t: GuardTarget, otpId: string): Promise<void> {
    await this.redis.zrem(this.windowKeys(t, 'prefix')[0], otpId);
    await this.redis.zrem(this.windowKeys(t, 'country')[0], otpId);
  }

  /** Counts a verified code, at the time it was asked for (a code asked before the window counts nowhere). */
  async verified(t: GuardTarget, otpId: string, askedAt: Date, windowMs: number): Promise<void> {
    await (this.redis as unknown as Scripted).smsgwOtpGuardVerified(
      this.windowKeys(t, 'prefix')[1],
      this.windowKeys(t, 'country')[1],
      windowMs,
      otpId,
      askedAt.getTime(),
    );
  }

  /** Holds a scope for `windowMs`; false when it is held already (another replica made the hold). */
  async hold(t: GuardTarget, scope: HoldScope, holdId: string, windowMs: number): Promise<boolean> {
    return (await this.redis.set(this.holdKey(t, scope), holdId, 'PX', windowMs, 'NX')) === 'OK';
  }

  /** Ends a hold (when it is this one) and forgets the counts that tripped it, so that the next code does not trip it again. */
  async release(t: GuardTarget, scope: HoldScope, holdId: string): Promise<void> {
    const key = this.holdKey(t, scope);
    if ((await this.redis.get(key)) === holdId) await this.redis.del(key);
    await this.redis.del(...this.windowKeys(t, scope));
  }
}
