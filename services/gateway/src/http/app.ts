import Koa from 'koa';
import Router from '@koa/router';
import {
  AppError,
  isRedisUnavailable,
  settleForwardedHeaders,
  type Logger,
  type Redis,
  type TickPipeline,
  type TrustedProxies,
} from '@smsgw/platform';
import type { Upstreams } from '../use-cases/upstreams';
import { PROBES, type GatewayState } from './context';
import { authenticate, KeyVerifier, type AuthOptions } from './middleware/auth';
import { errorEnvelope } from './middleware/errors';
import { idempotency, type IdempotencyBudget } from './middleware/idempotency';
import { rateLimit } from './middleware/rate-limit';
import { accessLog, requestId } from './middleware/request-id';
import { traceRequest } from './middleware/tracing';
import { openApiDocument } from '../openapi';
import type { ListenDeps } from '../use-cases/listen.use-case';
import { authRoutes } from './routes/auth.routes';
import { eventsRoutes } from './routes/events.routes';
import { inboxRoutes } from './routes/inbox.routes';
import { mcpRoutes } from './routes/mcp.routes';
import { optOutRoutes } from './routes/opt-outs.routes';
import { otpRoutes } from './routes/otp.routes';
import { smsRoutes } from './routes/sms.routes';
import type { ReadinessReport } from './readiness';

export interface AppOptions {
  upstreams: Upstreams;
  log: Logger;
  redis: Redis;
  /** The same Redis, for the commands of every request (rate limit, presence), one round trip per turn of the event loop. */
  pipeline: TickPipeline;
  auth: AuthOptions;
  /** The dependencies' state, for GET /readyz. */
  readiness: () => Promise<ReadinessReport>;
  rateLimit: { limit: number; windowMs: number };
  idempotencyTtlSeconds: number;
  /** What the answers kept for replays may take in Redis. */
  idempotencyBudget: IdempotencyBudget;
  /** How long a request's Idempotency-Key answers 409 while it runs, at most (a gateway may die mid-request). */
  idempotencyInProgressSeconds: number;
  /** Behind a TLS-terminating proxy: its addresses. Requests it did not receive over HTTPS are refused. */
  trustedProxies?: TrustedProxies;
  /** Whether a message's `webhook_url` may be a private address (development only; the webhook service has the same setting). */
  allowPrivateWebhooks: boolean;
  /** GET /v1/events/listen; without it (no NATS configured) the route answers 503. */
  listen?: ListenDeps;
}

export function createApp(options: AppOptions): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  const trusted = options.trustedProxies;
  // Koa reads the forwarded headers once settleForwardedHeaders has rewritten them to what a trusted proxy said.
  app.proxy = trusted !== undefined;
  app.maxIpsCount = 1;
  // One cache of verified keys for requests and open event streams alike.
  const keys = new KeyVerifier(options.upstreams.accounts, options.auth);
  const auth = authenticate(keys, options.pipeline, options.auth);
  const guard = rateLimit(options.redis, options.pipeline, options.rateLimit);
  const idempotent = idempotency(options.redis, {
    ttlSeconds: options.idempotencyTtlSeconds,
    inProgressSeconds: options.idempotencyInProgressSeconds,
    budget: options.idempotencyBudget,
  });
  const routers = [
    smsRoutes(options.upstreams, auth, guard, idempotent, { allowPrivate: options.allowPrivateWebhooks }),
    otpRoutes(options.upstreams, auth, guard, idempotent),
    inboxRoutes(options.upstreams, auth, guard),
    optOutRoutes(options.upstreams, auth, guard),
    authRoutes(options.upstreams, auth, guard),
    eventsRoutes(options.listen, auth, guard, keys),
    mcpRoutes(options.upstreams, auth, guard, { allowPrivate: options.allowPrivateWebhooks }, options.log),
  ];
  const health = new Router<GatewayState>();
  // Liveness: the process answers; nothing else is checked.
  health.get('/healthz', (ctx) => {
    ctx.body = { success: true };
  });
  // Readiness: Redis and every upstream service answer.
  health.get('/readyz', async (ctx) => {
    const report = await options.readiness();
    if (!report.ready) {
      throw new AppError('SERVICE_UNAVAILABLE', {
        retryAfterSeconds: 5,
        details: Object.entries(report.checks)
          .filter(([, state]) => state === 'down')
          .map(([field]) => ({ field, code: 'SERVICE_UNAVAILABLE' })),
      });
    }
    ctx.body = { success: true, checks: report.checks };
  });
  health.get('/v1/openapi.json', (ctx) => {
    ctx.body = openApiDocument;
  });

  app.use(async (ctx, next) => {
    const origin = trusted ? settleForwardedHeaders(ctx.req, trusted) : { ip: ctx.req.socket.remoteAddress, clientKnown: true };
    ctx.state.clientAddress = origin.clientKnown ? origin.ip : undefined;
    await next();
  });
  app.use(traceRequest);
  app.use(requestId);
  app.use(accessLog(options.log));
  app.use(errorEnvelope(options.log, isRedisUnavailable));
  app.use(async (ctx, next) => {
    if (trusted && !PROBES.has(ctx.path) && ctx.protocol !== 'https') throw new AppError('HTTPS_REQUIRED');
    await next();
  });
  app.use(health.routes());
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
