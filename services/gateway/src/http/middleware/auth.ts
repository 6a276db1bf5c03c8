import { AppError, type PromiseClient } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import type { AuthContext, GatewayMiddleware } from '../context';

/**
 * Authentication rules 3 to 5 of the specification: missing headers, then
 * the key, then the client. A successful verification is trusted for at most
 * `ttlMs` (5 s), which bounds how long a revoked key keeps working.
 */
export function authenticate(accounts: PromiseClient<account.AccountServiceClient>, ttlMs: number): GatewayMiddleware {
  const cache = new Map<string, { auth: AuthContext; until: number }>();
  const MAX_ENTRIES = 10_000;

  return async (ctx, next) => {
    const apiKey = ctx.get('x-api-key');
    const clientId = ctx.get('x-client-id');
    if (!apiKey || !clientId) throw new AppError('MISSING_AUTH_HEADERS');
    const cacheKey = `${clientId}\n${apiKey}`;
    const cached = cache.get(cacheKey);
    if (cached && cached.until > Date.now()) {
      ctx.state.auth = cached.auth;
      return next();
    }
    const verified = await accounts.verifyApiKey({ apiKey, clientId });
    const auth: AuthContext = { clientId: verified.clientId, mode: verified.mode === 'KEY_MODE_TEST' ? 'test' : 'live' };
    if (ttlMs > 0) {
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(cacheKey, { auth, until: Date.now() + ttlMs });
    }
    ctx.state.auth = auth;
    return next();
  };
}
