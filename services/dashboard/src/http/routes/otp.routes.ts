import { parseMode } from '@smsgw/platform';
import { GUARD_FIELDS, otpOverview, releaseHold, saveGuard, type GuardForm } from '../../use-cases/otp.use-case';
import { otpView, type OtpPage } from '../../views/otp.view';
import { recordAction } from '../../use-cases/audit.use-case';
import { actorOf, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

const q = (ctx: DashContext, name: string) => (typeof ctx.query[name] === 'string' ? ctx.query[name].trim() : '');
const modeOf = (ctx: DashContext) => parseMode(q(ctx, 'mode'));
const daysOf = (ctx: DashContext) => Math.min(90, Math.max(1, Math.floor(Number(q(ctx, 'days'))) || 30));

const NOTICES: Record<string, string> = {
  released: 'The hold is released: codes to these numbers go again.',
  gone: 'That hold is not one of yours, or it is over.',
  saved: 'The guard is saved: it applies to the codes asked from now on (within a few seconds).',
};

/** The one-time passwords page: conversion statistics, the pumping guard's holds and settings. */
export function otpRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  async function otpPage(ctx: DashContext, extra: Pick<OtpPage, 'typed' | 'error'> = {}) {
    const mode = modeOf(ctx);
    const days = daysOf(ctx);
    const overview = await otpOverview(up, ctx.state.session!.clientId, mode, days);
    const done = q(ctx, 'done');
    page(
      ctx,
      'One-time passwords',
      'otp',
      otpView({ csrf: ctx.state.session!.csrf, mode, days, ...overview, ...extra, ok: extra.error ? undefined : NOTICES[done] }),
    );
  }

  const back = (ctx: DashContext, done: string) => ctx.redirect(`/otp?done=${done}${modeOf(ctx) === 'test' ? '&mode=test' : ''}`);

  router.get('/otp', async (ctx) => otpPage(ctx));
  router.post('/otp/holds/:holdId/release', async (ctx) => {
    const holdId = (ctx.params.holdId ?? '').slice(0, 64);
    back(ctx, (await releaseHold(up, ctx.state.session!.clientId, holdId)) ? 'released' : 'gone');
  });
  router.post('/otp/guard', async (ctx) => {
    const form = Object.fromEntries(GUARD_FIELDS.map((name) => [name, field(ctx, name).slice(0, 20)])) as GuardForm;
    const saved = await saveGuard(up, ctx.state.session!.clientId, form);
    if (!saved.ok) {
      ctx.status = 400;
      return otpPage(ctx, { typed: { form, invalid: saved.invalid }, error: saved.error });
    }
    await recordAction(up, actorOf(ctx), 'settings.changed', ctx.state.session!.clientId, { setting: 'OTP guard' });
    back(ctx, 'saved');
  });
}
