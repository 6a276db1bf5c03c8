import { AppError } from '@smsgw/platform';
import type { Confirmation, Reauthentication } from '../../use-cases/confirm-password.use-case';
import { confirmVerification, requestPasswordReset, resetPassword } from '../../use-cases/email-links.use-case';
import { saveDestinations } from '../../use-cases/destinations.use-case';
import { clientSettings, type ClientSettings, type FleetField } from '../../use-cases/fleet.use-case';
import { overview } from '../../use-cases/overview.use-case';
import {
  askVerificationAgain,
  changeAlertEmail,
  changePasswordOf,
  revealSigningSecret,
  rotateSigningSecret,
  saveFleetSettings,
} from '../../use-cases/settings.use-case';
import { signIn, signOut } from '../../use-cases/sign-in.use-case';
import { signUpFrom } from '../../use-cases/sign-up.use-case';
import {
  credentialsForm as credentialsView,
  emailVerifiedView,
  firstProofView,
  forgotPasswordView,
  overviewView,
  resetPasswordView,
  settingsView,
  USED_LINK,
  verifyEmailView,
  type SettingsNotes,
} from '../../views/account.view';
import type { SafeHtml } from '../../views/html';
import { layout } from '../../views/layout';
import { recordAction } from '../../use-cases/audit.use-case';
import {
  actorOf,
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

export function anonymous(ctx: DashContext, title: string, body: SafeHtml, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = layout(title, pageContext(ctx), body);
}

/** A sign-in waiting for its second factor (sign-in.use-case.ts completeSignIn). */
export const PENDING_COOKIE = '__Host-smsgw_pending';

/** Only a local path is followed after sign-in (never another site). */
export const safeNext = (next: string | undefined) => (next && /^\/[A-Za-z0-9/_-]*$/.test(next) && !next.startsWith('//') ? next : '/');

function credentialsForm(
  ctx: DashContext,
  kind: 'signin' | 'signup',
  notes: { ok?: string; error?: string; email?: string } = {},
): SafeHtml {
  return credentialsView(pageContext(ctx), kind, { next: safeNext(ctx.query.next as string | undefined), ...notes });
}

export const startSession = (ctx: DashContext, token: string) => ctx.cookies.set(SESSION_COOKIE, token, cookieOptions());

const WRONG_PASSWORD = 'Your password is wrong: nothing was changed. Type the password you sign in with.';
const TOO_MANY_WRONG = 'Too many wrong passwords: nothing was changed. Wait 15 minutes and try again.';
const WRONG_CODE = 'The code of your authenticator app is wrong or missing: nothing was changed. Type the code it shows now.';

/** What a password asked again says when it is not right ('' when it is). */
export function refusal(ctx: DashContext, confirmation: Confirmation): string {
  if (confirmation === 'throttled') ctx.status = 429;
  if (confirmation === 'code') return WRONG_CODE;
  return confirmation === 'confirmed' ? '' : confirmation === 'throttled' ? TOO_MANY_WRONG : WRONG_PASSWORD;
}

/** A sensitive action's form: the password asked again, the second factor's code, where it came from. */
export const reauthOf = (ctx: DashContext): Reauthentication => ({
  password: ctx.state.form!.get('password') ?? '',
  code: field(ctx, 'code'),
  address: ctx.state.clientAddress,
});

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
          const error = 'Too many accounts were created from your address. Try again in an hour.';
          return anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup', { error, email }), 429);
        }
        startSession(ctx, result.token);
        ctx.redirect('/keys?welcome=1');
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup', { error: explain(err), email }), 400);
      }
    });
    router.get('/signin', (ctx) => {
      const ok = ctx.query.reset === '1' ? 'Your password was changed and every session signed out. Sign in with the new one.' : undefined;
      anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', { ok }));
    });
    router.post('/signin', async (ctx) => {
      const email = field(ctx, 'email');
      const result = await signIn(deps, ctx.state.clientAddress, email, ctx.state.form!.get('password') ?? '');
      if (result.outcome === 'throttled') {
        const error = 'Too many failed sign-ins. Wait 15 minutes and try again.';
        return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', { error, email }), 429);
      }
      if (result.outcome === 'refused') {
        return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', { error: 'Wrong e-mail or password.', email }), 401);
      }
      if (result.outcome === 'second-factor') {
        ctx.cookies.set(PENDING_COOKIE, result.pending, cookieOptions(5 * 60_000));
        return ctx.redirect(`/signin/code?next=${encodeURIComponent(safeNext(ctx.query.next as string | undefined))}`);
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
    router.get('/reset-password', (ctx) => anonymous(ctx, 'Choose a new password', resetPasswordView(pageContext(ctx), linkToken(ctx))));
    router.post('/reset-password', async (ctx) => {
      const token = field(ctx, 'token');
      let reset: Awaited<ReturnType<typeof resetPassword>>;
      try {
        reset = await resetPassword(deps, token, ctx.state.form!.get('new') ?? '');
        if (!reset) return anonymous(ctx, 'Choose a new password', resetPasswordView(pageContext(ctx), token, USED_LINK), 400);
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        return anonymous(ctx, 'Choose a new password', resetPasswordView(pageContext(ctx), token, explain(err)), 400);
      }
      // Every session of the user ended, this browser's too.
      ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
      // The first proof of the address says what it revoked (a page of its own, not a redirect anyone could forge).
      if (reset.proof) return anonymous(ctx, 'Your account is yours', firstProofView(reset));
      ctx.redirect('/signin?reset=1');
    });
    router.get('/verify-email', (ctx) => anonymous(ctx, 'Confirm your address', verifyEmailView(pageContext(ctx), linkToken(ctx))));
    router.post('/verify-email', async (ctx) => {
      if (!(await confirmVerification(deps, field(ctx, 'token')))) {
        return anonymous(ctx, 'Confirm your address', emailVerifiedView(false), 400);
      }
      anonymous(ctx, 'Address confirmed', emailVerifiedView(true));
    });
    return;
  }

  router.post('/signout', async (ctx) => {
    await signOut(sessions, ctx.state.token!);
    ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
    ctx.redirect('/signin');
  });

  router.get('/', async (ctx) => {
    const s = ctx.state.session!;
    page(ctx, 'Overview', 'overview', overviewView(await overview(up, s.clientId, s.email), s.csrf));
  });

  const sessionOf = (ctx: DashContext) => ctx.state.session!;
  /** The sensitive actions' re-authentication: the form's `password` and `code` fields. */
  const passwordOf = (ctx: DashContext) => reauthOf(ctx);

  function settingsPage(ctx: DashContext, settings: ClientSettings, extra: SettingsNotes = {}) {
    page(ctx, 'Settings', 'settings', settingsView(sessionOf(ctx).csrf, settings, extra));
  }

  router.get('/settings', async (ctx) => settingsPage(ctx, await clientSettings(up, sessionOf(ctx).clientId)));
  router.post('/settings/secret', async (ctx) => {
    const { confirmation, secret, settings } = await revealSigningSecret(deps, sessionOf(ctx), passwordOf(ctx));
    const refused = refusal(ctx, confirmation);
    if (!refused) await recordAction(up, actorOf(ctx), 'secret.shown', sessionOf(ctx).clientId, { secret: 'signing secret' });
    settingsPage(ctx, settings, refused ? { error: refused } : { secret });
  });
  router.post('/settings/secret/rotate', async (ctx) => {
    const { confirmation, secret, settings } = await rotateSigningSecret(deps, sessionOf(ctx), passwordOf(ctx));
    const refused = refusal(ctx, confirmation);
    if (!refused) await recordAction(up, actorOf(ctx), 'secret.rotated', sessionOf(ctx).clientId, { secret: 'signing secret' });
    settingsPage(ctx, settings, refused ? { error: refused } : { secret, ok: 'The signing secret was rotated. Here is the new one.' });
  });
  router.post('/settings/alerts', async (ctx) => {
    const changed = await changeAlertEmail(deps, sessionOf(ctx), passwordOf(ctx), field(ctx, 'email'));
    const refused = refusal(ctx, changed.confirmation);
    if (refused) return settingsPage(ctx, changed.settings, { error: refused });
    if ('failure' in changed) return settingsPage(ctx, changed.settings, { error: explain(changed.failure) });
    await recordAction(up, actorOf(ctx), 'settings.changed', sessionOf(ctx).clientId, { setting: 'alert e-mail' });
    settingsPage(ctx, changed.settings, {
      ok: 'Alert e-mails go to the new address once you confirm it: open the link we e-mailed there.',
    });
  });
  router.post('/settings/fleet', async (ctx) => {
    const form = {
      defaultTtl: field(ctx, 'default_ttl'),
      failoverDelay: field(ctx, 'failover_delay'),
      simRule: field(ctx, 'sim_rule'),
      defaultSim: field(ctx, 'default_sim'),
    };
    const change = await saveFleetSettings(deps, sessionOf(ctx), passwordOf(ctx), form);
    switch (change.outcome) {
      case 'invalid': {
        ctx.status = 400;
        const invalid = Object.keys(change.errors) as FleetField[];
        return settingsPage(ctx, change.settings, { error: Object.values(change.errors).join(' '), fleet: { form, invalid } });
      }
      case 'throttled':
      case 'wrong':
        return settingsPage(ctx, change.settings, { error: refusal(ctx, change.outcome), fleet: { form, invalid: [] } });
      case 'refused':
        // The account service's own refusal (its bounds): shown as the other forms show theirs.
        ctx.status = 400;
        return settingsPage(ctx, change.settings, { error: explain(change.error), fleet: { form, invalid: [] } });
      case 'saved':
        await recordAction(up, actorOf(ctx), 'settings.changed', sessionOf(ctx).clientId, { setting: 'fleet' });
        return settingsPage(ctx, change.settings, {
          ok: 'The fleet settings are saved. The default time to live applies to the messages sent from now on, the failover delay and the SIM rule within a minute.',
        });
    }
  });
  router.post('/settings/destinations', async (ctx) => {
    const clientId = sessionOf(ctx).clientId;
    const form = {
      smsCountries: field(ctx, 'sms_countries').slice(0, 2000),
      otpCountries: field(ctx, 'otp_countries').slice(0, 2000),
      otpNumberTypes: (ctx.state.form?.getAll('otp_number_types') ?? []).slice(0, 20),
    };
    const saved = await saveDestinations(up, clientId, form);
    const settings = await clientSettings(up, clientId);
    if (!saved.ok) {
      ctx.status = 400;
      const invalid = (saved.error.details ?? []).map((d) => String(d.field));
      return settingsPage(ctx, settings, { error: explain(saved.error), destinations: { form, invalid } });
    }
    await recordAction(up, actorOf(ctx), 'settings.changed', clientId, { setting: 'destinations' });
    settingsPage(ctx, settings, { ok: 'The destinations are saved: every send is checked against them within a few seconds.' });
  });
  router.post('/settings/verify-email', async (ctx) => {
    const { outcome, settings } = await askVerificationAgain(deps, sessionOf(ctx).clientId);
    if (outcome === 'throttled') ctx.status = 429;
    settingsPage(
      ctx,
      settings,
      outcome === 'sent'
        ? { ok: 'We sent the link again. Open it from the e-mail to confirm the address.' }
        : outcome === 'verified'
          ? { ok: 'The address is confirmed already.' }
          : { error: 'Several links were sent already. Wait an hour before asking again.' },
    );
  });
  router.post('/settings/password', async (ctx) => {
    const passwords = { current: ctx.state.form!.get('current') ?? '', next: ctx.state.form!.get('new') ?? '' };
    const changed = await changePasswordOf(
      deps,
      { ...sessionOf(ctx), token: ctx.state.token!, address: ctx.state.clientAddress },
      passwords,
    );
    const settings = changed.settings;
    if ('failure' in changed) return settingsPage(ctx, settings, { error: explain(changed.failure) });
    const outcome = changed.outcome;
    if (outcome === 'throttled') return settingsPage(ctx, settings, { error: refusal(ctx, outcome) });
    if (outcome === 'wrong') return settingsPage(ctx, settings, { error: 'The current password is wrong.' });
    settingsPage(ctx, settings, { ok: 'Password changed. Your other sessions were signed out.' });
  });
}
