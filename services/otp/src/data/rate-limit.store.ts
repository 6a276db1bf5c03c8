import { randomBytes } from 'node:crypto';
import type { Redis } from '@smsgw/platform';

// A sliding log per client, mode and number: the times of the OTPs accepted
// in the last window. One script, so it is exact across otp replicas;
// Redis's own clock, so replicas with skewed clocks agree. A refused request
// is not logged.
const SLIDING_WINDOW = `
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now_ms, ARGV[3])
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset_ms = window
if oldest[2] then reset_ms = tonumber(oldest[2]) + window - now_ms end
return {allowed, reset_ms}
`;

type WithScript = Redis & { otpSlidingWindow(key: string, windowMs: number, limit: number, member: string): Promise<[number, number]> };

export interface Taken {
  allowed: boolean;
  /** Seconds until an OTP leaves the window (when refused: until one may be asked again). */
  retryAfterSeconds: number;
  /** Gives the slot back (the OTP could not be sent after all). */
  release(): Promise<void>;
}

/** At most `limit` OTPs in any `windowMs` for one number of one client. */
export class OtpRateLimit {
  private readonly replica = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: { limit: number; windowMs: number },
  ) {
    redis.defineCommand('otpSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW });
  }

  /** `numberKey` is a keyed hash of the number: no phone number is written to Redis. */
  async take(clientId: string, mode: string, numberKey: string): Promise<Taken> {
    const key = `otp-rate:${clientId}:${mode}:${numberKey}`;
    const member = `${this.replica}-${(this.sequence++).toString(36)}`;
    const [allowed, resetMs] = await (this.redis as WithScript).otpSlidingWindow(key, this.options.windowMs, this.options.limit, member);
    return {
      allowed: allowed === 1,
      retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
      release: async () => {
        await this.redis.zrem(key, member);
      },
    };
  }
}
