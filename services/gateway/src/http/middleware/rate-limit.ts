import { randomBytes } from 'node:crypto';
import { AppError, type ChainableCommander, type Redis, type TickPipeline } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

// A sliding log per client: the times of its accepted requests in the last
// window. One script, so it is exact across gateway replicas; Redis's own
// clock, so replicas with skewed clocks agree. A refused request is not
// logged: waiting for the window to pass always clears the limit.
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
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset_ms = window
if oldest[2] then reset_ms = tonumber(oldest[2]) + window - now_ms end
return {allowed, count, reset_ms}
`;

/**
 * 100 requests a minute per client (configurable). Every authenticated
 * response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset
 * (seconds until a request leaves the window); a refused one is 429
 * RATE_LIMIT_EXCEEDED with Retry-After.
 */
export function rateLimit(redis: Redis, pipeline: TickPipeline, options: { limit: number; windowMs: number }): GatewayMiddleware {
  // Sent by its SHA (EVALSHA), not its text, on every request; the requests
  // of one turn of the event loop share one round trip.
  redis.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW });
  const slidingWindow = (...args: (string | number)[]) =>
    pipeline.run<[number, number, number]>((p) => (p as ChainableCommander & { slidingWindow(...a: (string | number)[]): unknown }).slidingWindow(...args));
  // Each logged request needs a member of its own in the client's set: this
  // replica's random name and a counter.
  const replica = randomBytes(6).toString('hex');
  let sequence = 0;
  return async (ctx, next) => {
    const clientId = ctx.state.auth!.clientId;
    const [allowed, count, resetMs] = await slidingWindow(`ratelimit:${clientId}`, options.windowMs, options.limit, `${replica}-${(sequence++).toString(36)}`);
    const reset = Math.max(1, Math.ceil(resetMs / 1000));
    ctx.set('RateLimit-Limit', String(options.limit));
    ctx.set('RateLimit-Remaining', String(Math.max(0, options.limit - count)));
    ctx.set('RateLimit-Reset', String(reset));
    if (allowed !== 1) throw new AppError('RATE_LIMIT_EXCEEDED', { retryAfterSeconds: reset });
    await next();
  };
}
