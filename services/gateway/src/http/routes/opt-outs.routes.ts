import Router from '@koa/router';
import { optOutBody, optOutRemovedBody, optOutsBody } from '../../mappers/opt-outs.mapper';
import { addOptOut, listOptOuts, removeOptOut } from '../../use-cases/opt-outs.use-case';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware, GatewayState } from '../context';
import { allow } from '../middleware/scopes';
import { jsonBody } from '../middleware/json-body';
import { optOutNumberBody, optOutNumberParam, optOutsQuery } from '../query';

/**
 * The suppression list (opt-outs): called like the history (X-API-Key and
 * X-Client-ID, the same rate limit); the key's mode chooses the list. A number
 * is checked and normalised as a send's `to`.
 */
export function optOutRoutes(up: Upstreams, auth: GatewayMiddleware, guard: GatewayMiddleware): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/v1/opt-outs', auth, allow('opt-outs'), guard, async (ctx) => {
    const query = optOutsQuery(ctx);
    ctx.body = optOutsBody(await listOptOuts(up, ctx.state.auth!, query));
  });

  router.post('/v1/opt-outs', auth, allow('opt-outs'), guard, jsonBody, async (ctx) => {
    const phoneNumber = optOutNumberBody(ctx.state.body!);
    ctx.body = optOutBody(await addOptOut(up, ctx.state.auth!, phoneNumber));
  });

  router.delete('/v1/opt-outs/:phone_number', auth, allow('opt-outs'), guard, async (ctx) => {
    const phoneNumber = optOutNumberParam(ctx);
    ctx.body = optOutRemovedBody(phoneNumber, await removeOptOut(up, ctx.state.auth!, phoneNumber));
  });

  return router;
}
