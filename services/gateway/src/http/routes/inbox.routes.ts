import Router from '@koa/router';
import { inboxBody, receivedBody } from '../../mappers/inbox.mapper';
import { inbox, receivedMessage } from '../../use-cases/inbox.use-case';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware, GatewayState } from '../context';
import { allow } from '../middleware/scopes';
import { inboxQuery, receivedIdParam } from '../query';

/**
 * The received SMS: read like the history and the status (X-API-Key and
 * X-Client-ID, the same rate limit); a test key sees the test-mode ones only.
 */
export function inboxRoutes(up: Upstreams, auth: GatewayMiddleware, guard: GatewayMiddleware): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/v1/sms/inbox', auth, allow('inbox'), guard, async (ctx) => {
    const query = inboxQuery(ctx);
    ctx.body = inboxBody(await inbox(up, ctx.state.auth!, query));
  });

  router.get('/v1/sms/inbox/:id', auth, allow('inbox'), guard, async (ctx) => {
    ctx.body = receivedBody(await receivedMessage(up, ctx.state.auth!, receivedIdParam(ctx)));
  });

  return router;
}
