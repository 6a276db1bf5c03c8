import { AppError } from '@smsgw/platform';
import { removeMember } from '../../use-cases/members.use-case';
import { changePassword } from '../../use-cases/settings.use-case';
import { completeSignIn } from '../../use-cases/sign-in.use-case';
import { beginEnrolment, confirmEnrolment, disableTwoFactor } from '../../use-cases/two-factor.use-case';
import { profileView, secondFactorView, type ProfileNotes } from '../../views/profile.view';
import { cookieOptions, explain, field, page, pageContext, type AppDeps, type DashContext, type DashRouter } from '../context';
import { anonymous, PENDING_COOKIE, reauthOf, refusal, safeNext, startSession } from './account.routes';
import { memberActor, refusedChange } from './members.routes';

/** The second step of a sign-in (public), and each member's own page: two-factor sign-in, password, leaving. */
export function profileRoutes(router: DashRouter, deps: AppDeps, part: 'public' | 'private'): void {
  const next = (ctx: DashContext) => safeNext(ctx.query.next as string | undefined);

  if (part === 'public') {
    router.get('/signin/code', (ctx) => anonymous(ctx, 'Two-factor sign-in', secondFactorView(pageContext(ctx), next(ctx))));
    router.post('/signin/code', async (ctx) => {
      const pending = ctx.cookies.get(PENDING_COOKIE) ?? '';
      const result = await completeSignIn(deps, ctx.state.clientAddress, pending, field(ctx, 'code'));
      const again = (error: string, status: number) =>
        anonymous(ctx, 'Two-factor sign-in', secondFactorView(pageContext(ctx), next(ctx), error), status);
      if (result.outcome === 'expired') return ctx.redirect(`/signin?next=${encodeURIComponent(next(ctx))}`);
      if (result.outcome === 'throttled') return again('Too many failed sign-ins. Wait 15 minutes and try again.', 429);
      if (result.outcome === 'refused') return again('Wrong code. Type the code your authenticator app shows now.', 401);
      ctx.cookies.set(PENDING_COOKIE, '', cookieOptions(0));
      startSession(ctx, result.token);
      ctx.redirect(next(ctx));
    });
    return;
  }

  async function profile(ctx: DashContext, notes: ProfileNotes = {}) {
    const s = ctx.state.session!;
    const member = ctx.state.member!;
    const me = { email: s.email, role: member.role, twoFactor: member.twoFactor, mustEnrol: member.mustEnrol };
    if (notes.error && ctx.status < 400) ctx.status = 400;
    if (!notes.ok && !notes.error && ctx.query.enrol === '1' && member.mustEnrol) {
      notes.error = 'This account requires two-factor sign-in: set it up to open the other pages.';
      ctx.status = 200;
    }
    page(ctx, 'Your profile', 'profile', await profileView(s.csrf, me, notes));
  }

  router.get('/profile', async (ctx) => profile(ctx));
  router.post('/profile/two-factor/begin', async (ctx) => {
    if (ctx.state.member!.twoFactor) return profile(ctx, { error: 'Two-factor sign-in is on already.' });
    await profile(ctx, { enrolment: await beginEnrolment(deps.up, ctx.state.session!.userId) });
  });
  router.post('/profile/two-factor/confirm', async (ctx) => {
    const codes = await confirmEnrolment(deps.up, ctx.state.session!.userId, field(ctx, 'code'), ctx.state.clientAddress);
    if (codes.length === 0) {
      return profile(ctx, { error: 'Wrong code: two-factor sign-in is still off. Set it up again and type the code the app shows.' });
    }
    ctx.state.member = { ...ctx.state.member!, twoFactor: true, mustEnrol: false };
    await profile(ctx, { ok: 'Two-factor sign-in is on: from now on, signing in asks for a code.', recoveryCodes: codes });
  });
  router.post('/profile/two-factor/disable', async (ctx) => {
    const s = ctx.state.session!;
    const refused = refusal(ctx, await disableTwoFactor(deps, s, reauthOf(ctx)));
    if (refused) return profile(ctx, { error: refused });
    ctx.state.member = { ...ctx.state.member!, twoFactor: false, mustEnrol: false };
    await profile(ctx, { ok: 'Two-factor sign-in is off.' });
  });
  router.post('/profile/password', async (ctx) => {
    const s = ctx.state.session!;
    const passwords = { current: ctx.state.form!.get('current') ?? '', next: ctx.state.form!.get('new') ?? '' };
    try {
      const outcome = await changePassword(deps, { ...s, token: ctx.state.token!, address: ctx.state.clientAddress }, passwords);
      if (outcome === 'throttled') return profile(ctx, { error: refusal(ctx, outcome) });
      if (outcome !== 'confirmed') return profile(ctx, { error: 'The current password is wrong.' });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return profile(ctx, { error: explain(err) });
    }
    await profile(ctx, { ok: 'Password changed. Your other sessions were signed out.' });
  });
  router.post('/profile/leave', async (ctx) => {
    const s = ctx.state.session!;
    try {
      await removeMember(deps, memberActor(ctx), s.userId);
    } catch (err) {
      return profile(ctx, { error: refusedChange(err) });
    }
    ctx.redirect('/signin');
  });
}
