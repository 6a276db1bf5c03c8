import { AppError, parseMode } from '@smsgw/platform';
import { confirmPassword, type Confirmation } from '../../use-cases/confirm-password.use-case';
import {
  confirmVerification,
  requestPasswordReset,
  resendVerification,
  resetPassword,
  sendVerificationQuietly,
} from '../../use-cases/email-links.use-case';
import { changeFleet, clientSettings, parseFleetForm, type FleetField } from '../../use-cases/fleet.use-case';
import { createKey, listKeys, revokeKey } from '../../use-cases/keys.use-case';
import { overview } from '../../use-cases/overview.use-case';
import { changeAlertEmail, changePassword, rotateSigningSecret, signingSecret } from '../../use-cases/settings.use-case';
import { signIn, signOut } from '../../use-cases/sign-in.use-case';
import { signUpFrom } from '../../use-cases/sign-up.use-case';
import {
  credentialsForm as credentialsView,
  forgotPasswordView,
  keysView,
  overviewView,
  resetPasswordView,
  settingsView,
  verifyEmailView,
  type SettingsNotes,
} from '../../views/account.view';
import { html, type SafeHtml } from '../../views/html';
import { layout, notice } from '../../views/layout';
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
const TOO_MANY_WRONG = 'Too many wrong passwords: nothing was changed. Wait 15 minutes and try again.';

/** What a password asked again says when it is not right ('' when it is). */
function refusal(ctx: DashContext, confirmation: Confirmation): string {
  if (confirmation === 'throttled') ctx.status = 429;
  return confirmation === 'confirmed' ? '' : confirmation === 'throttled' ? TOO_MANY_WRONG : WRONG_PASSWORD;
}

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
        await sendVerificationQuietly(deps, result.clientId);
        ctx.redirect('/keys?welcome=1');
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup', explain(err), email), 400);
      }
    });
    router.get('/signin', (ctx) =>
      anonymous(
        ctx,
        'Sign in',
        ctx.query.reset === '1'
          ? html`${notice('ok', 'Your password was changed and every session signed out. Sign in with the new one.')}${credentialsForm(ctx, 'signin')}`
          : credentialsForm(ctx, 'signin'),
      ),
    );
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

    router.get('/forgot-password', (ctx) => anonymous(ctx, 'Forgot password', forgotPasswordView(pageContext(ctx), {})));
    router.post('/forgot-password', async (ctx) => {
      const email = field(ctx, 'email');
      if ((await requestPasswordReset(deps, ctx.state.clientAddress, email)) === 'throttled') {
        const error = 'Too many password reset requests. Wait an hour and try again.';
        return anonymous(ctx, 'Forgot password', forgotPasswordView(pageContext(ctx), { error, email }), 429);
      }
      anonymous(ctx, 'Forgot password', forgotPasswordView(pageContext(ctx), { sent: true }));
    });
    const linkToken = (ctx: DashContext) => String(ctx.query.token ?? '').slice(0, 100);
    const USED_LINK = 'This link does not work: it was used already, it expired, or it is not whole. Ask for a new one.';
    router.get('/reset-password', (ctx) => anonymous(ctx, 'Choose a new password', resetPasswordView(pageContext(ctx), linkToken(ctx))));
    router.post('/reset-password', async (ctx) => {
      const token = field(ctx, 'token');
      try {
        if (!(await resetPassword(deps, token, ctx.state.form!.get('new') ?? ''))) {
          return anonymous(ctx, 'Choose a new password', resetPasswordView(pageContext(ctx), token, USED_LINK), 400);
        }
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        return anonymous(ctx, 'Choose a new password', resetPasswordView(pageContext(ctx), token, explain(err)), 400);
      }
      // Every session of the user ended, this browser's too.
      ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
      ctx.redirect('/signin?reset=1');
    });
    router.get('/verify-email', (ctx) => anonymous(ctx, 'Confirm your address', verifyEmailView(pageContext(ctx), linkToken(ctx))));
    router.post('/verify-email', async (ctx) => {
      if (!(await confirmVerification(deps, field(ctx, 'token')))) {
        return anonymous(ctx, 'Confirm your address', html`${notice('error', USED_LINK)}`, 400);
      }
      anonymous(ctx, 'Address confirmed', html`${notice('ok', 'Your address is confirmed: alert e-mails will be sent to it.')}`);
    });
    return;
  }

  router.post('/signout', async (ctx) => {
    await signOut(sessions, ctx.state.token!);
    ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
    ctx.redirect('/signin');
  });

  router.get('/', async (ctx) => {
    page(ctx, 'Overview', 'overview', overviewView(await overview(up, ctx.state.session!.clientId), ctx.state.session!.csrf));
  });

  /** The sensitive actions' re-authentication: the form's `password` field is the user's. */
  const passwordRefusal = async (ctx: DashContext) =>
    refusal(ctx, await confirmPassword(deps, ctx.state.session!, ctx.state.form!.get('password') ?? ''));

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
    const refused = await passwordRefusal(ctx);
    if (refused) return keysPage(ctx, undefined, refused, name);
    const key = await createKey(up, ctx.state.session!.clientId, name, mode);
    await keysPage(ctx, { key, mode, name });
  });
  router.post('/keys/:keyId/revoke', async (ctx) => {
    await revokeKey(up, ctx.state.session!.clientId, ctx.params.keyId!);
    ctx.redirect('/keys');
  });

  async function settingsPage(ctx: DashContext, extra: SettingsNotes = {}) {
    const s = ctx.state.session!;
    page(ctx, 'Settings', 'settings', settingsView(s.csrf, await clientSettings(up, s.clientId), extra));
  }

  router.get('/settings', (ctx) => settingsPage(ctx));
  router.post('/settings/secret', async (ctx) => {
    const refused = await passwordRefusal(ctx);
    if (refused) return settingsPage(ctx, { error: refused });
    await settingsPage(ctx, { secret: await signingSecret(up, ctx.state.session!.clientId) });
  });
  router.post('/settings/secret/rotate', async (ctx) => {
    const secret = await rotateSigningSecret(up, ctx.state.session!.clientId);
    await settingsPage(ctx, { secret, ok: 'The signing secret was rotated. Here is the new one.' });
  });
  router.post('/settings/alerts', async (ctx) => {
    const refused = await passwordRefusal(ctx);
    if (refused) return settingsPage(ctx, { error: refused });
    try {
      const clientId = ctx.state.session!.clientId;
      await changeAlertEmail(up, clientId, field(ctx, 'email'));
      await sendVerificationQuietly(deps, clientId);
      await settingsPage(ctx, { ok: 'Alert e-mails go to the new address once you confirm it: open the link we e-mailed there.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
  router.post('/settings/fleet', async (ctx) => {
    const form = {
      defaultTtl: field(ctx, 'default_ttl'),
      failoverDelay: field(ctx, 'failover_delay'),
      simRule: field(ctx, 'sim_rule'),
      defaultSim: field(ctx, 'default_sim'),
    };
    const parsed = parseFleetForm(form);
    if (!parsed.ok) {
      ctx.status = 400;
      const invalid = Object.keys(parsed.errors) as FleetField[];
      return settingsPage(ctx, { error: Object.values(parsed.errors).join(' '), fleet: { form, invalid } });
    }
    const refused = await passwordRefusal(ctx);
    if (refused) return settingsPage(ctx, { error: refused, fleet: { form, invalid: [] } });
    try {
      await changeFleet(up, ctx.state.session!.clientId, parsed.value);
    } catch (err) {
      // The account service's own refusal (its bounds): shown as the other forms show theirs.
      if (!(err instanceof AppError) || err.httpStatus !== 400) throw err;
      ctx.status = 400;
      return settingsPage(ctx, { error: explain(err), fleet: { form, invalid: [] } });
    }
    await settingsPage(ctx, {
      ok: 'The fleet settings are saved. The default time to live applies to the messages sent from now on, the failover delay and the SIM rule within a minute.',
    });
  });
  router.post('/settings/verify-email', async (ctx) => {
    const outcome = await resendVerification(deps, ctx.state.session!.clientId);
    if (outcome === 'throttled') ctx.status = 429;
    await settingsPage(
      ctx,
      outcome === 'sent'
        ? { ok: 'We sent the link again. Open it from the e-mail to confirm the address.' }
        : outcome === 'verified'
          ? { ok: 'The address is confirmed already.' }
          : { error: 'Several links were sent already. Wait an hour before asking again.' },
    );
  });
  router.post('/settings/password', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const outcome = await changePassword(
        deps,
        { userId: s.userId, email: s.email, token: ctx.state.token! },
        { current: ctx.state.form!.get('current') ?? '', next: ctx.state.form!.get('new') ?? '' },
      );
      if (outcome === 'throttled') return settingsPage(ctx, { error: refusal(ctx, outcome) });
      if (outcome === 'wrong') return settingsPage(ctx, { error: 'The current password is wrong.' });
      await settingsPage(ctx, { ok: 'Password changed. Your other sessions were signed out.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
}
