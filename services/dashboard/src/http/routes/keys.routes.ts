import { modeFromProto, parseMode } from '@smsgw/platform';
import { may } from '../access';
import { accountVerified } from '../../use-cases/account-verification.use-case';
import { createKey, listKeys, revokeKey, type KeyView } from '../../use-cases/keys.use-case';
import { keysView, type KeyTyped } from '../../views/account.view';
import { explain, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';
import { reauthOf, refusal } from './account.routes';

const LIVE_KEYS_REFUSED = 'Your role makes and revokes test keys only: ask an admin or an owner for a live key.';

/** The API keys page: the client's keys (limits, use of the day, creator), a new key, a revocation. */
export function keyRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;
  const sessionOf = (ctx: DashContext) => ctx.state.session!;
  /** The sensitive actions' re-authentication: the form's `password` and `code` fields. */
  const passwordOf = (ctx: DashContext) => reauthOf(ctx);

  async function keysPage(
    ctx: DashContext,
    keys: KeyView[],
    notes: { fresh?: { key: string; mode: string; name: string }; error?: string; typed?: KeyTyped } = {},
  ) {
    const s = sessionOf(ctx);
    const { fresh, error, typed } = notes;
    const unverifiedAccount = (await accountVerified(up, s.clientId)) ? undefined : s.email;
    page(
      ctx,
      'API keys',
      'keys',
      keysView({ csrf: s.csrf, keys, welcome: ctx.query.welcome === '1', fresh, error, typed, unverifiedAccount }),
    );
  }

  router.get('/keys', async (ctx) => keysPage(ctx, await listKeys(deps, sessionOf(ctx).clientId)));
  router.post('/keys', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    const mode = parseMode(field(ctx, 'mode'));
    const typed: KeyTyped = {
      name,
      scopes: ctx.state.form!.getAll('scopes'),
      ipRanges: field(ctx, 'ip_ranges').slice(0, 2000),
      dailyQuota: field(ctx, 'daily_quota').slice(0, 20),
    };
    const again = async (error: string) => keysPage(ctx, await listKeys(deps, sessionOf(ctx).clientId), { error, typed });
    if (mode === 'live' && !may(ctx.state.member?.role, 'keys.live')) {
      ctx.status = 403;
      return again(LIVE_KEYS_REFUSED);
    }
    if (!name) return again('Give the key a name, to recognise it later.');
    if (typed.dailyQuota && !/^\d{1,9}$/.test(typed.dailyQuota))
      return again('The daily quota is a whole number of SMS (empty: no quota).');
    const limits = {
      scopes: typed.scopes,
      ipRanges: typed.ipRanges.split(/[\s,]+/).filter(Boolean),
      dailyQuota: Number(typed.dailyQuota || 0),
    };
    const created = await createKey(deps, sessionOf(ctx), passwordOf(ctx), { name, mode, ...limits }, ctx.state.clientAddress);
    const refused = refusal(ctx, created.confirmation) || (created.error ? explain(created.error) : '');
    if (refused) return keysPage(ctx, created.keys, { error: refused, typed });
    await keysPage(ctx, created.keys, { fresh: { key: created.key!, mode, name } });
  });
  router.post('/keys/:keyId/revoke', async (ctx) => {
    if (!may(ctx.state.member?.role, 'keys.live')) {
      const keys = await listKeys(deps, sessionOf(ctx).clientId);
      const key = keys.find((k) => k.keyId === ctx.params.keyId);
      if (!key || modeFromProto(key.mode) !== 'test') {
        ctx.status = 403;
        return keysPage(ctx, keys, { error: LIVE_KEYS_REFUSED });
      }
    }
    await revokeKey(up, sessionOf(ctx), ctx.params.keyId!, ctx.state.clientAddress);
    ctx.redirect('/keys');
  });
}
