import { AppError } from '@smsgw/platform';
import {
  acceptInvitation,
  changeRole,
  invitationOf,
  inviteMember,
  membersPage,
  removeMember,
  requireTwoFactor,
  withdrawInvitation,
} from '../../use-cases/members.use-case';
import { invitationView, membersView } from '../../views/members.view';
import { explain, field, page, pageContext, type AppDeps, type DashContext, type DashRouter } from '../context';
import { anonymous, startSession } from './account.routes';

/** A member's action on the account's members: its session, and the address it acts from. */
const actor = (ctx: DashContext) => ({ ...ctx.state.session!, address: ctx.state.clientAddress });

const LAST_OWNER = 'The account keeps at least one owner: make another member owner first.';

/** What a refused change says: the last owner, or the account service's own words. */
function refusedChange(err: unknown): string {
  if (err instanceof AppError && err.code === 'LAST_OWNER') return LAST_OWNER;
  if (err instanceof AppError && err.code === 'NOT_FOUND') return 'That member is not in this account any more.';
  if (err instanceof AppError && err.code === 'ACCOUNT_NOT_VERIFIED') {
    return 'Confirm the account address first: open the link we e-mailed you at sign-up.';
  }
  if (err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'ROLE_NOT_ALLOWED')) {
    const taken = (err.details ?? []).some((d) => d.code === 'EMAIL_TAKEN');
    return taken ? 'That address is a member of an account already.' : explain(err);
  }
  throw err;
}

/** Members (issue 41): the owners' page of members and invitations; the invitation link's page, public. */
export function memberRoutes(router: DashRouter, deps: AppDeps, part: 'public' | 'private'): void {
  const { up } = deps;
  const linkToken = (ctx: DashContext) => String(ctx.query.token ?? '').slice(0, 100);

  if (part === 'public') {
    router.get('/invite', async (ctx) => {
      const token = linkToken(ctx);
      anonymous(ctx, 'Join the account', invitationView(pageContext(ctx), token, await invitationOf(up, token)));
    });
    router.post('/invite', async (ctx) => {
      const token = field(ctx, 'token').slice(0, 100);
      const invitation = await invitationOf(up, token);
      try {
        const session = invitation && (await acceptInvitation(deps, token, ctx.state.form!.get('password') ?? '', ctx.state.clientAddress));
        if (!session) return anonymous(ctx, 'Join the account', invitationView(pageContext(ctx), token, undefined), 400);
        startSession(ctx, session);
        ctx.redirect('/');
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        anonymous(ctx, 'Join the account', invitationView(pageContext(ctx), token, invitation, explain(err)), 400);
      }
    });
    return;
  }

  async function membersAgain(ctx: DashContext, notes: { ok?: string; error?: string } = {}) {
    const s = ctx.state.session!;
    if (notes.error && ctx.status < 400) ctx.status = 400;
    page(ctx, 'Members', 'members', membersView(s.csrf, await membersPage(up, s.clientId), { ...notes, self: s.userId }));
  }

  router.get('/members', async (ctx) => membersAgain(ctx));
  router.post('/members/invite', async (ctx) => {
    const email = field(ctx, 'email').slice(0, 254);
    try {
      await inviteMember(deps, actor(ctx), { email, role: field(ctx, 'role') });
    } catch (err) {
      return membersAgain(ctx, { error: refusedChange(err) });
    }
    await membersAgain(ctx, { ok: `The invitation is on its way to ${email}.` });
  });
  router.post('/members/withdraw', async (ctx) => {
    await withdrawInvitation(up, actor(ctx), field(ctx, 'email').slice(0, 254)).catch(() => undefined);
    await membersAgain(ctx, { ok: 'The invitation no longer works.' });
  });
  router.post('/members/:userId/role', async (ctx) => {
    try {
      await changeRole(up, actor(ctx), ctx.params.userId!, field(ctx, 'role'));
    } catch (err) {
      return membersAgain(ctx, { error: refusedChange(err) });
    }
    if (ctx.params.userId === ctx.state.session!.userId && field(ctx, 'role') !== 'owner') return ctx.redirect('/');
    await membersAgain(ctx, { ok: 'The role is changed: it holds from the member’s next click.' });
  });
  router.post('/members/:userId/remove', async (ctx) => {
    try {
      await removeMember(deps, actor(ctx), ctx.params.userId!);
    } catch (err) {
      return membersAgain(ctx, { error: refusedChange(err) });
    }
    if (ctx.params.userId === ctx.state.session!.userId) return ctx.redirect('/signin');
    await membersAgain(ctx, { ok: 'The member is removed: their sessions ended.' });
  });
  router.post('/members/two-factor', async (ctx) => {
    const required = field(ctx, 'required') === 'yes';
    await requireTwoFactor(up, actor(ctx), required);
    await membersAgain(ctx, {
      ok: required ? 'Every member now signs in with a second factor.' : 'Members choose whether they use a second factor.',
    });
  });
}

export { refusedChange, actor as memberActor };
