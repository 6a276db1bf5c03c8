import { AppError, parseMode } from '@smsgw/platform';
import { confirmPassword } from '../../use-cases/confirm-password.use-case';
import { createKey, listKeys, revokeKey } from '../../use-cases/keys.use-case';
import { overview } from '../../use-cases/overview.use-case';
import { alertEmail, changeAlertEmail, changePassword, rotateSigningSecret, signingSecret } from '../../use-cases/settings.use-case';
import { signIn, signOut } from '../../use-cases/sign-in.use-case';
import { signUpFrom } from '../../use-cases/sign-up.use-case';
import { credentialsForm as credentialsView, keysView, overviewView, settingsView, type SettingsNotes } from '../../views/account.view';
import type { SafeHtml } from '../../views/html';
import { layout } from '../../views/layout';
import {
  cookieOptions,
  explain,
  field,
  page,
  pageContext,
  SESSION_COOKIE,
  type AppDeps,
  type DashContext,
  type DashRouter,
} from '../context';

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

const startSession = (ctx: DashContext, token: string) => ctx.cookies.set(SESSION_COOKIE, token, cookieOptions());

const WRONG_PASSWORD = 'Your password is wrong: nothing was changed. Type the password you sign in with.';

export function accountRoutes(router: DashRouter, deps: AppDeps, part: 'public' | 'private'): void {
  const { up, sessions } = deps;

  if (part === 'public') {
    router.get('/signup', (ctx) => anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup')));
    router.post('/signup', async (ctx) => {
      const email = field(ctx, 'email');
      try {
        const result = await signUpFrom(deps, ctx.state.clientAddress, {
          email,
          password: ctx.state.form!.get('password') ?? '',
          name: field(ctx, 'name'),
        });
        if (result.outcome === 'throttled') {
          return anonymous(
            ctx,
            'Create your account',
            credentialsForm(ctx, 'signup', 'Too many accounts were created from your address. Try again in an hour.', email),
            429,
          );
        }
        startSession(ctx, result.token);
        ctx.redirect('/keys?welcome=1');
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup', explain(err), email), 400);
      }
    });
    router.get('/signin', (ctx) => anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin')));
    router.post('/signin', async (ctx) => {
      const email = field(ctx, 'email');
      const result = await signIn(deps, ctx.state.clientAddress, email, ctx.state.form!.get('password') ?? '');
      if (result.outcome === 'throttled') {
        return anonymous(
          ctx,
          'Sign in',
          credentialsForm(ctx, 'signin', 'Too many failed sign-ins. Wait 15 minutes and try again.', email),
          429,
        );
      }
      if (result.outcome === 'refused') {
        return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', 'Wrong e-mail or password.', email), 401);
      }
      startSession(ctx, result.token);
      ctx.redirect(safeNext(ctx.query.next as string | undefined));
    });
    return;
  }

  router.post('/signout', async (ctx) => {
    await signOut(sessions, ctx.state.token!);
    ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
    ctx.redirect('/signin');
  });

  router.get('/', async (ctx) => {
    page(ctx, 'Overview', 'overview', overviewView(await overview(up, ctx.state.session!.clientId)));
  });

  /** The sensitive actions' re-authentication: the form's `password` field is the user's. */
  const passwordConfirmed = (ctx: DashContext) => confirmPassword(up, ctx.state.session!, ctx.state.form!.get('password') ?? '');

  async function keysPage(ctx: DashContext, fresh?: { key: string; mode: string; name: string }, error?: string, typed?: string) {
    const s = ctx.state.session!;
    const keys = await listKeys(up, s.clientId);
    page(ctx, 'API keys', 'keys', keysView({ csrf: s.csrf, keys, welcome: ctx.query.welcome === '1', fresh, error, typedName: typed }));
  }

  router.get('/keys', (ctx) => keysPage(ctx));
  router.post('/keys', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    const mode = parseMode(field(ctx, 'mode'));
    if (!name) return keysPage(ctx, undefined, 'Give the key a name, to recognise it later.');
    if (!(await passwordConfirmed(ctx))) return keysPage(ctx, undefined, WRONG_PASSWORD, name);
    const key = await createKey(up, ctx.state.session!.clientId, name, mode);
    await keysPage(ctx, { key, mode, name });
  });
  router.post('/keys/:keyId/revoke', async (ctx) => {
    await revokeKey(up, ctx.state.session!.clientId, ctx.params.keyId!);
    ctx.redirect('/keys');
  });

  async function settingsPage(ctx: DashContext, extra: SettingsNotes = {}) {
    const s = ctx.state.session!;
    page(ctx, 'Settings', 'settings', settingsView(s.csrf, await alertEmail(up, s.clientId), extra));
  }

  router.get('/settings', (ctx) => settingsPage(ctx));
  router.post('/settings/secret', async (ctx) => {
    if (!(await passwordConfirmed(ctx))) return settingsPage(ctx, { error: WRONG_PASSWORD });
    await settingsPage(ctx, { secret: await signingSecret(up, ctx.state.session!.clientId) });
  });
  router.post('/settings/secret/rotate', async (ctx) => {
    const secret = await rotateSigningSecret(up, ctx.state.session!.clientId);
    await settingsPage(ctx, { secret, ok: 'The signing secret was rotated. Here is the new one.' });
  });
  router.post('/settings/alerts', async (ctx) => {
    if (!(await passwordConfirmed(ctx))) return settingsPage(ctx, { error: WRONG_PASSWORD });
    try {
      await changeAlertEmail(up, ctx.state.session!.clientId, field(ctx, 'email'));
      await settingsPage(ctx, { ok: 'Alert e-mails go to the new address.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
  router.post('/settings/password', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const changed = await changePassword(
        up,
        sessions,
        { userId: s.userId, token: ctx.state.token! },
        { current: ctx.state.form!.get('current') ?? '', next: ctx.state.form!.get('new') ?? '' },
      );
      if (!changed) return settingsPage(ctx, { error: 'The current password is wrong.' });
      await settingsPage(ctx, { ok: 'Password changed. Your other sessions were signed out.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
}
