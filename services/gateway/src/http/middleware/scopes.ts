import { AppError, type KeyScope } from '@smsgw/platform';
import type { AuthContext, GatewayMiddleware } from '../context';

/** Whether the key may use a route that any of `scopes` opens (a key without scopes may use every route). */
export function keyMayUse(auth: AuthContext, scopes: readonly KeyScope[]): boolean {
  return auth.scopes === undefined || scopes.some((s) => auth.scopes!.has(s));
}

/**
 * A route's scopes, after `auth`: a key limited to other scopes is refused SCOPE_NOT_ALLOWED
 * (`details[0].scopes`: the scopes that would open the route). The OpenAPI document lists each
 * operation's scopes (`x-key-scopes`).
 */
export function allow(...scopes: KeyScope[]): GatewayMiddleware {
  return (ctx, next) => {
    requireScopes(ctx.state.auth!, scopes);
    return next();
  };
}

/** SCOPE_NOT_ALLOWED unless the key may use what any of `scopes` opens (routes, and the MCP tools that stand for them). */
export function requireScopes(auth: AuthContext, scopes: readonly KeyScope[]): void {
  if (keyMayUse(auth, scopes)) return;
  const message = `Autorisations qui ouvrent cette fonction : ${scopes.join(', ')}.`;
  throw new AppError('SCOPE_NOT_ALLOWED', { details: [{ field: 'X-API-Key', code: 'SCOPE_NOT_ALLOWED', message, scopes: [...scopes] }] });
}
