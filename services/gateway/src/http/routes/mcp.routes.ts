import Router from '@koa/router';
import { serveMcpRequest } from '@smsgw/mcp';
import { AppError, type Logger } from '@smsgw/platform';
import type { WebhookUrlPolicy } from '../../domain/send-request';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware, GatewayState } from '../context';
import { mcpOperations } from '../mcp-operations';
import { jsonBody } from '../middleware/json-body';

/**
 * POST /v1/mcp: the MCP tools over streamable HTTP, for remote agents. The request passes the
 * REST API's authentication (X-API-Key, X-Client-ID) and rate limit first, like any other; then
 * the SDK's transport answers it, its tools running as the key's client (`mcpOperations`).
 * Stateless: no session and no event stream, so GET and DELETE, which would serve them, are 405.
 */
export function mcpRoutes(
  up: Upstreams,
  auth: GatewayMiddleware,
  guard: GatewayMiddleware,
  webhookPolicy: WebhookUrlPolicy,
  log: Logger,
): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/v1/mcp', auth, guard, jsonBody, async (ctx) => {
    const api = mcpOperations(
      up,
      { auth: ctx.state.auth!, deviceId: ctx.get('x-device-id') || undefined, requestId: ctx.state.requestId },
      webhookPolicy,
      log,
    );
    // The transport writes the answer itself; Koa must leave the response alone.
    ctx.respond = false;
    await serveMcpRequest(api, ctx.req, ctx.res, ctx.state.body);
  });

  router.all('/v1/mcp', auth, guard, (ctx) => {
    ctx.set('Allow', 'POST');
    throw new AppError('METHOD_NOT_ALLOWED');
  });

  return router;
}
