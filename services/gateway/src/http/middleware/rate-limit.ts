import { AppError, SlidingWindowLimiter, type Redis, type TickPipeline } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

/**
 * 100 requests a minute per client (configurable). Every authenticated
 * response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset
 * (seconds until a request leaves the window); a refused one is 429
 * RATE_LIMIT_EXCEEDED with Retry-After.
 */
export function rateLimit(redis: Redis, pipeline: TickPipeline, options: { limit: number; windowMs: number }): GatewayMiddleware {
  // A sliding log per client, in one script (exact across replicas); a refused request is not
  // logged. The requests of one turn of the event loop share one round trip.
  const limiter = new SlidingWindowLimiter(pipeline, options);
  return async (ctx, next) => {
    const clientId = ctx.state.auth!.clientId;
    const { allowed, count, resetMs } = await limiter.hit(`ratelimit:${clientId}`);
    const reset = Math.max(1, Math.ceil(resetMs / 1000));
    ctx.set('RateLimit-Limit', String(options.limit));
    ctx.set('RateLimit-Remaining', String(Math.max(0, options.limit - count)));
    ctx.set('RateLimit-Reset', String(reset));
    if (!allowed) throw new AppError('RATE_LIMIT_EXCEEDED', { retryAfterSeconds: reset });
    await next();
  };
}
