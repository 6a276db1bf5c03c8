import { newId, type Logger } from '@smsgw/platform';
import { PROBES, type GatewayMiddleware } from '../context';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-ID: the caller's own when it is sane, ours otherwise. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given && ACCEPTABLE.test(given) ? given : newId('req');
}

export const requestId: GatewayMiddleware = async (ctx, next) => {
  ctx.state.requestId = requestIdFrom(ctx.get('x-request-id') || undefined);
  ctx.set('X-Request-ID', ctx.state.requestId);
  await next();
};

/** One line per request, with the route pattern (never the body, the key or a phone number). */
export function accessLog(log: Logger): GatewayMiddleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (!PROBES.has(ctx.path)) {
        log.info(
          {
            request_id: ctx.state.requestId,
            method: ctx.method,
            route: (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched',
            status: ctx.status,
            client_id: ctx.state.auth?.clientId,
            duration_ms: Math.round(performance.now() - started),
          },
          'request',
        );
      }
    }
  };
}
