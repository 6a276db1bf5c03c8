import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import { counter } from '@smsgw/platform';
import { listenKinds } from '../../domain/listen';
import { openListen, type ListenDeps } from '../../use-cases/listen.use-case';
import type { GatewayMiddleware, GatewayState } from '../context';
import { allow, keyMayUse } from '../middleware/scopes';
import type { KeyVerifier } from '../middleware/auth';
import { eventsQuery } from '../query';
import { sseSink } from '../sse';

const listenersClosed = counter('gateway.listeners_closed', 'Event streams the gateway closed, by reason (key revoked, slow reader)');

/**
 * GET /v1/events/listen (`smsgw listen`): the client's events as server-sent events, each signed
 * with the session's secret as a webhook delivery is. Authenticated and counted by the rate limit
 * once, when it opens; its key is checked again while it lives, as any request's.
 */
export function eventsRoutes(
  deps: ListenDeps | undefined,
  auth: GatewayMiddleware,
  guard: GatewayMiddleware,
  keys: KeyVerifier,
): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/v1/events/listen', auth, allow('listen'), guard, async (ctx) => {
    const kinds = listenKinds(eventsQuery(ctx));
    const stream = new PassThrough();
    const [apiKey, clientId] = [ctx.get('x-api-key'), ctx.get('x-client-id')];
    const address = ctx.state.clientAddress;
    // Revoked, or no longer allowed to listen from here: the stream ends as a new request would be refused.
    const keyHolds = async () => {
      const { auth } = await keys.verify(apiKey, clientId);
      const holds = auth !== undefined && keyMayUse(auth, ['listen']) && (auth.ranges === undefined || auth.ranges.allows(address));
      if (!holds) listenersClosed.add(1, { reason: 'key_revoked' });
      return holds;
    };
    const sink = sseSink(stream, deps?.maxBufferedBytes ?? 0, () => {
      listenersClosed.add(1, { reason: 'slow_reader' });
      // What is buffered is dropped with the connection: the reader sees its stream end.
      ctx.req.socket.destroy();
    });
    const session = await openListen(deps, ctx.state.auth!, kinds, sink, keyHolds);
    // Koa destroys the body when the response ends or the client goes: the session ends with it.
    stream.once('close', () => void session.close());
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.set('Cache-Control', 'no-cache, no-transform');
    // Nginx and the like would otherwise hold the events back in their buffers.
    ctx.set('X-Accel-Buffering', 'no');
    ctx.type = 'text/event-stream; charset=utf-8';
    ctx.body = stream;
  });

  return router;
}
