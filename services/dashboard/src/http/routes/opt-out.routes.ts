import {
  addOptOut,
  optOutsOverview,
  removeOptOut,
  saveSettings,
  settingsForm,
  SETTINGS_FIELDS,
  type OptOutsOverview,
  type SettingsErrors,
  type SettingsForm,
} from '../../use-cases/opt-outs.use-case';
import { optOutsView } from '../../views/opt-outs.view';
import { recordAction } from '../../use-cases/audit.use-case';
import { actorOf, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

interface Extra {
  typed?: string;
  addError?: string;
  settings?: { form: SettingsForm; errors: SettingsErrors };
}

const NOTICES: Record<string, (n: string) => string> = {
  added: (n) => `${n} is on the list: it receives no more SMS from you.`,
  removed: (n) => `${n} is off the list: your SMS reach it again.`,
  absent: (n) => `${n} was not on the list.`,
  saved: () => 'The keywords are saved: they apply to the SMS received from now on.',
};

/** The page asked for, from 1 to a million. */
const pageOf = (ctx: DashContext) => Math.max(1, Math.min(1_000_000, Math.floor(Number(ctx.query.page)) || 1));

/** The suppression list (live) and its keyword settings. */
export function optOutRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  function optOutsPage(ctx: DashContext, { list, settings }: OptOutsOverview, extra: Extra = {}) {
    const s = ctx.state.session!;
    const pageNo = pageOf(ctx);
    const done = typeof ctx.query.done === 'string' ? NOTICES[ctx.query.done] : undefined;
    // Only a number is echoed from the address (no text of someone else's making on the page).
    const number = typeof ctx.query.number === 'string' && /^\+\d{6,15}$/.test(ctx.query.number) ? ctx.query.number : 'The number';
    page(
      ctx,
      'Opt-outs',
      'opt-outs',
      optOutsView({
        csrf: s.csrf,
        list,
        pageNo,
        typed: extra.typed,
        addError: extra.addError,
        settings: extra.settings?.form ?? settingsForm(settings!),
        settingsErrors: extra.settings?.errors,
        ok: done && !extra.addError && !extra.settings ? done(number) : undefined,
      }),
    );
  }

  const back = (ctx: DashContext, done: string, number = '') =>
    ctx.redirect(`/opt-outs?done=${done}${number ? `&number=${encodeURIComponent(number)}` : ''}`);

  router.get('/opt-outs', async (ctx) => optOutsPage(ctx, await optOutsOverview(up, ctx.state.session!.clientId, pageOf(ctx))));
  router.post('/opt-outs', async (ctx) => {
    const typed = field(ctx, 'phone_number').slice(0, 32);
    const added = await addOptOut(up, ctx.state.session!.clientId, typed, pageOf(ctx));
    if ('error' in added) {
      ctx.status = 400;
      return optOutsPage(ctx, added.page, { typed, addError: added.error });
    }
    back(ctx, 'added', added.number);
  });
  router.post('/opt-outs/remove', async (ctx) => {
    const number = field(ctx, 'phone_number').slice(0, 32);
    const removed = number !== '' && (await removeOptOut(up, ctx.state.session!.clientId, number));
    back(ctx, removed ? 'removed' : 'absent', number);
  });
  router.post('/opt-outs/settings', async (ctx) => {
    const form = Object.fromEntries(SETTINGS_FIELDS.map((name) => [name, field(ctx, name).slice(0, 2000)])) as SettingsForm;
    const saved = await saveSettings(up, ctx.state.session!.clientId, form, pageOf(ctx));
    if (!saved.ok) {
      ctx.status = 400;
      return optOutsPage(ctx, saved.page, { settings: { form, errors: saved.errors } });
    }
    await recordAction(up, actorOf(ctx), 'settings.changed', ctx.state.session!.clientId, { setting: 'opt-out keywords' });
    back(ctx, 'saved');
  });
}
