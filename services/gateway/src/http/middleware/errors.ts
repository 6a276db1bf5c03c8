import { AppError, type Logger } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

/** The single place where failures become the specification's error envelope. */
export function errorEnvelope(log: Logger): GatewayMiddleware {
  return async (ctx, next) => {
    try {
      await next();
      // Nothing answered: no route (404), or a route without this method, for
      // which the router has set the Allow header (405, or 501 for a method it
      // does not know at all).
      if (ctx.body === undefined && ctx.status === 404) throw new AppError('NOT_FOUND');
      if (ctx.body === undefined && (ctx.status === 405 || ctx.status === 501)) throw new AppError('METHOD_NOT_ALLOWED');
    } catch (err) {
      let appError: AppError;
      if (err instanceof AppError) appError = err;
      else appError = new AppError('INTERNAL_ERROR', { cause: err });
      if (appError.code === 'INTERNAL_ERROR') {
        log.error({ err, request_id: ctx.state.requestId, path: ctx.path }, 'request failed');
        appError = new AppError('INTERNAL_ERROR', { message: `Erreur interne du serveur (requête ${ctx.state.requestId}).` });
      } else if (appError.code === 'SERVICE_UNAVAILABLE') {
        log.warn({ err: appError.cause, request_id: ctx.state.requestId }, 'a dependency is unavailable');
      }
      ctx.status = appError.httpStatus;
      if (appError.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(appError.retryAfterSeconds));
      ctx.body = {
        success: false,
        error: { code: appError.code, message: appError.message, ...(appError.details ? { details: appError.details } : {}) },
      };
    }
  };
}
