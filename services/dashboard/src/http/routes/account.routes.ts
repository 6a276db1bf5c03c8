import { createHash } from 'node:crypto';
import { AppError } from '@smsgw/platform';
import { credentialsForm as credentialsView, keysView, overviewView, settingsView, type SettingsNotes } from '../../views/account.view';
import { layout } from '../../views/layout';
import { cookieOptions, explain, field, page, pageContext, SESSION_COOKIE, type AppDeps, type DashContext, type DashRouter } from '../context';
import type { SafeHtml } from '../../views/html';

function anonymous(ctx: DashContext, title: string, body: SafeHtml, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = layout(title, pageContext(ctx), body);
}

/** Only a local path is followed after sign-in (never another site). */
const safeNext = (next: string | undefined) => (next && /^\/[A-Za-z0-9/_-]*$/.test(next) && !next.startsWith('//') ? next : '/');

function credentialsForm(ctx: DashContext, kind: 'signin' | 'signup', error?: string, email = ''): SafeHtml {
  return credentialsView(pageContext(ctx), kind, { next: safeNext(ctx.query.next as string | undefined), error, email });
}

export function accountRoutes(router: DashRouter, deps: AppDeps, part: 'public' | 'private'): void {
  const { up, sessions, redis } = deps;

  async function startSession(ctx: DashContext, user: { userId: string; clientId: string; email: string }): Promise<void> {
    const { token } = await sessions.create(user);
    ctx.cookies.set(SESSION_COOKIE, token, cookieOptions());
  }

  /** Counts a failed sign-in for the address and for the e-mail; true when either is past the limit. */
  async function throttled(ctx: DashContext, email: string, count: boolean): Promise<boolean> {
    const keys = [`dashboard:signin:ip:${ctx.ip}`, `dashboard:signin:email:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`];
    const counts = await Promise.all(
      keys.map(async (k) => {
        if (!count) return Number((await redis.get(k)) ?? 0);
        const n = await redis.incr(k);
        if (n === 1) await redis.pexpire(k, deps.signIn.windowMs);
        return n;
      }),
    );
    return counts.some((n) => n >= deps.signIn.maxFailures);
  }

  if (part === 'public') {
    router.get('/signup', (ctx) => anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup')));
    router.post('/signup', async (ctx) => {
      const email = field(ctx, 'email');
      try {
        const created = await up.accounts.signUp({ email, password: ctx.state.form!.get('password') ?? '', name: field(ctx, 'name') });
        await startSession(ctx, { userId: created.user!.userId, clientId: created.user!.clientId, email: created.user!.email });
        ctx.redirect('/keys?welcome=1');
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup', explain(err), email), 400);
      }
    });
    router.get('/signin', (ctx) => anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin')));
    router.post('/signin', async (ctx) => {
      const email = field(ctx, 'email');
      if (await throttled(ctx, email, false)) {
        return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', 'Too many failed sign-ins. Wait 15 minutes and try again.', email), 429);
      }
      const user = await up.accounts.signIn({ email, password: ctx.state.form!.get('password') ?? '' });
      if (!user.userId) {
        await throttled(ctx, email, true);
        return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', 'Wrong e-mail or password.', email), 401);
      }
      await startSession(ctx, { userId: user.userId, clientId: user.clientId, email: user.email });
      ctx.redirect(safeNext(ctx.query.next as string | undefined));
    });
    return;
  }

  router.post('/signout', async (ctx) => {
    await sessions.end(ctx.state.token!);
    ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
    ctx.redirect('/signin');
  });

  router.get('/', async (ctx) => {
    const s = ctx.state.session!;
    const [stats, devices] = await Promise.all([
      up.messages.getStats({ clientId: s.clientId, mode: 'MODE_LIVE', fromDate: new Date(Date.now() - 7 * 86_400_000).toISOString(), toDate: '', deviceId: '' }),
      up.devices.listDevices({ clientId: s.clientId, onlineOnly: false }),
    ]);
    const online = devices.devices.filter((d) => d.status === 'online').length;
    page(ctx, 'Overview', 'overview', overviewView({ clientId: s.clientId, totalSent: stats.totalSent, deliveryRate: stats.deliveryRate, online, phones: devices.devices.length }));
  });

  async function keysPage(ctx: DashContext, fresh?: { key: string; mode: string; name: string }, error?: string) {
    const s = ctx.state.session!;
    const { keys } = await up.accounts.listApiKeys({ clientId: s.clientId });
    page(ctx, 'API keys', 'keys', keysView({ csrf: s.csrf, keys, welcome: ctx.query.welcome === '1', fresh, error }));
  }

  router.get('/keys', (ctx) => keysPage(ctx));
  router.post('/keys', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    const mode = field(ctx, 'mode') === 'test' ? 'test' : 'live';
    if (!name) return keysPage(ctx, undefined, 'Give the key a name, to recognise it later.');
    const created = await up.accounts.createApiKey({ clientId: ctx.state.session!.clientId, mode: mode === 'test' ? 'KEY_MODE_TEST' : 'KEY_MODE_LIVE', label: name });
    await keysPage(ctx, { key: created.apiKey, mode, name });
  });
  router.post('/keys/:keyId/revoke', async (ctx) => {
    await up.accounts.revokeApiKeyById({ clientId: ctx.state.session!.clientId, keyId: ctx.params.keyId! });
    ctx.redirect('/keys');
  });

  async function settingsPage(ctx: DashContext, extra: SettingsNotes = {}) {
    const s = ctx.state.session!;
    const client = await up.accounts.getClient({ clientId: s.clientId });
    page(ctx, 'Settings', 'settings', settingsView(s.csrf, client.email, extra));
  }

  router.get('/settings', (ctx) => settingsPage(ctx));
  router.post('/settings/secret', async (ctx) => {
    const { secret } = await up.accounts.getSigningSecret({ clientId: ctx.state.session!.clientId });
    await settingsPage(ctx, { secret });
  });
  router.post('/settings/secret/rotate', async (ctx) => {
    const { secret } = await up.accounts.rotateSigningSecret({ clientId: ctx.state.session!.clientId });
    await settingsPage(ctx, { secret, ok: 'The signing secret was rotated. Here is the new one.' });
  });
  router.post('/settings/alerts', async (ctx) => {
    try {
      await up.accounts.updateClient({ clientId: ctx.state.session!.clientId, email: field(ctx, 'email'), name: '' });
      await settingsPage(ctx, { ok: 'Alert e-mails go to the new address.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
  router.post('/settings/password', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const { changed } = await up.accounts.changePassword({ userId: s.userId, currentPassword: ctx.state.form!.get('current') ?? '', newPassword: ctx.state.form!.get('new') ?? '' });
      if (!changed) return settingsPage(ctx, { error: 'The current password is wrong.' });
      await sessions.endOthers(s.userId, ctx.state.token!);
      await settingsPage(ctx, { ok: 'Password changed. Your other sessions were signed out.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
}
