import { SlidingWindowLimiter, type Redis } from '@smsgw/platform';

export interface Taken {
  allowed: boolean;
  /** Seconds until an OTP leaves the window (when refused: until one may be asked again). */
  retryAfterSeconds: number;
  /** Gives the slot back (the OTP could not be sent after all). */
  release(): Promise<void>;
}

/**
 * At most `limit` OTPs in any `windowMs` for one number of one client: a sliding log in Redis,
 * exact across otp replicas; a refused request is not logged.
 */
export class OtpRateLimit {
  private readonly limiter: SlidingWindowLimiter;

  constructor(redis: Redis, options: { limit: number; windowMs: number }) {
    this.limiter = new SlidingWindowLimiter(redis, options);
  }

  /** `numberKey` is a keyed hash of the number: no phone number is written to Redis. */
  async take(clientId: string, mode: string, numberKey: string): Promise<Taken> {
    const hit = await this.limiter.hit(`otp-rate:${clientId}:${mode}:${numberKey}`);
    return { allowed: hit.allowed, retryAfterSeconds: Math.max(1, Math.ceil(hit.resetMs / 1000)), release: hit.release };
  }
}
