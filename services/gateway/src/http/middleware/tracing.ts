import { endSpan, recordHttp, startServerSpan, withSpan } from '@smsgw/platform';
import { PROBES, type GatewayMiddleware } from '../context';

/**
 * The request's server span, in the trace of its `traceparent` header when
 * it has one; everything below runs inside it, so logs and the spans of
 * Redis and gRPC calls carry its trace id. Named after the route pattern
 * (never the path, which holds ids), with the status it answered.
 */
export const traceRequest: GatewayMiddleware = async (ctx, next) => {
  if (PROBES.has(ctx.path)) return next();
  const started = performance.now();
  const span = startServerSpan(ctx.method, ctx.headers, { 'http.request.method': ctx.method, 'url.scheme': ctx.protocol });
  try {
    await withSpan(span, next);
  } finally {
    const route = (ctx as { _matchedRoute?: string })._matchedRoute;
    if (route) {
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', ctx.status);
    endSpan(span, ctx.status >= 500 ? String(ctx.status) : undefined);
    // RED per endpoint: the route pattern, or `unmatched` (never a path: paths hold ids).
    recordHttp(route ?? 'unmatched', ctx.method, ctx.status, (performance.now() - started) / 1000);
  }
};
