import Koa from 'koa';
import Router from '@koa/router';
import { AppError, type Logger, type Redis, type TickPipeline } from '@smsgw/platform';
import type { Upstreams } from '../use-cases';
import type { GatewayState } from './context';
import { authenticate } from './middleware/auth';
import { errorEnvelope } from './middleware/errors';
import { idempotency } from './middleware/idempotency';
import { rateLimit } from './middleware/rate-limit';
import { accessLog, requestId } from './middleware/request-id';
import { traceRequest } from './middleware/tracing';
import { openApiDocument } from '../openapi';
import { authRoutes } from './routes/auth.routes';
import { otpRoutes } from './routes/otp.routes';
import { smsRoutes } from './routes/sms.routes';

export interface AppOptions {
  upstreams: Upstreams;
  log: Logger;
  redis: Redis;
  /** The same Redis, for the commands of every request (rate limit, presence), one round trip per turn of the event loop. */
  pipeline: TickPipeline;
  authCacheTtlMs: number;
  rateLimit: { limit: number; windowMs: number };
  idempotencyTtlSeconds: number;
  /** Behind a TLS-terminating proxy: refuse requests it did not receive over HTTPS. */
  requireForwardedHttps: boolean;
}

export function createApp(options: AppOptions): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  app.proxy = options.requireForwardedHttps;
  const auth = authenticate(options.upstreams.accounts, options.authCacheTtlMs);
  const guard = rateLimit(options.redis, options.pipeline, options.rateLimit);
  const idempotent = idempotency(options.redis, options.idempotencyTtlSeconds);
  const routers = [
    smsRoutes(options.upstreams, auth, guard, idempotent),
    otpRoutes(options.upstreams, auth, guard, idempotent),
    authRoutes(options.upstreams, auth, guard),
  ];
  const health = new Router<GatewayState>();
  health.get('/healthz', (ctx) => {
    ctx.body = { success: true };
  });
  health.get('/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument;
  });

  app.use(traceRequest);
  app.use(requestId);
  app.use(accessLog(options.log));
  app.use(errorEnvelope(options.log));
  app.use(async (ctx, next) => {
    if (options.requireForwardedHttps && ctx.path !== '/healthz' && ctx.protocol !== 'https') throw new AppError('HTTPS_REQUIRED');
    await next();
  });
  app.use(health.routes());
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
