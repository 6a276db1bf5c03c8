import { AppError, type Logger } from '@smsgw/platform';
import type { GatewayMiddleware } from '../context';

/** Seconds a caller is asked to wait when a dependency is down. */
const DEPENDENCY_RETRY_SECONDS = 5;

/**
 * The single place where failures become the specification's error envelope.
 * `dependencyDown(err)` recognises failures of a dependency reached directly
 * (Redis): they answer 503 SERVICE_UNAVAILABLE with Retry-After, not 500.
 */
export function errorEnvelope(log: Logger, dependencyDown: (err: unknown) => boolean = () => false): GatewayMiddleware {
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
      else if (dependencyDown(err))
        appError = new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: DEPENDENCY_RETRY_SECONDS, cause: err });
      else appError = new AppError('INTERNAL_ERROR', { cause: err });
      if (appError.code === 'INTERNAL_ERROR') {
        log.error({ err, request_id: ctx.state.requestId, path: ctx.path }, 'request failed');
        appError = new AppError('INTERNAL_ERROR', { message: `Erreur interne du serveur (requête ${ctx.state.requestId}).` });
      } else if (appError.code === 'SERVICE_UNAVAILABLE') {
        log.warn({ err: appError.cause, request_id: ctx.state.requestId }, 'a dependency is unavailable');
      }
      if (appError.code === 'SERVICE_UNAVAILABLE' && appError.retryAfterSeconds === undefined) {
        appError = new AppError('SERVICE_UNAVAILABLE', { message: appError.message, retryAfterSeconds: DEPENDENCY_RETRY_SECONDS });
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
