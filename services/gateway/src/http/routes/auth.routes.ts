import Router from '@koa/router';
import { authTestBody } from '../../mappers/auth.mapper';
import { testAuth } from '../../use-cases/auth-test.use-case';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware, GatewayState } from '../context';
import { askPresence } from '../middleware/presence';

export function authRoutes(up: Upstreams, auth: GatewayMiddleware, guard: GatewayMiddleware): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/v1/auth/test', auth, askPresence(up), guard, async (ctx) => {
    const device = await testAuth(up, ctx.state.auth!, ctx.get('x-device-id') || undefined, ctx.state.presence);
    ctx.body = authTestBody(ctx.state.auth!, device);
  });
  return router;
}
