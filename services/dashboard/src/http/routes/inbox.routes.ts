import { AppError } from '@smsgw/platform';
import { conversations, replyable, replyInThread, thread, type ReplyErrors, type Thread } from '../../use-cases/inbox.use-case';
import { conversationPath, conversationView, inboxView } from '../../views/inbox.view';
import { explain, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

/** A sender as the network gives it: up to 32 characters (the hub's own bound). */
const MAX_SENDER = 32;

/** The inbox (live): the conversations by number, one conversation with its reply form. */
export function inboxRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  router.get('/inbox', async (ctx) => {
    let found: Awaited<ReturnType<typeof conversations>> = { list: [], truncated: false };
    let error: string | undefined;
    try {
      found = await conversations(up, ctx.state.session!.clientId);
    } catch (err) {
      if (!(err instanceof AppError) || err.httpStatus >= 500) throw err;
      error = explain(err);
    }
    page(ctx, 'Inbox', 'inbox', inboxView(found.list, found.truncated, error));
  });

  // The form that opens a number's conversation (a number that wrote before the latest ones).
  router.get('/inbox/open', (ctx) => {
    const typed = typeof ctx.query.number === 'string' ? ctx.query.number.trim().slice(0, MAX_SENDER) : '';
    if (!typed) return ctx.redirect('/inbox');
    // A number typed with spaces reaches the same conversation as the network's E.164 form.
    ctx.redirect(conversationPath(replyable(typed) ?? typed));
  });

  function conversationPage(
    ctx: DashContext,
    { lines, phones }: Thread,
    typed?: { form: { device_id: string; text: string }; errors: ReplyErrors },
  ) {
    const s = ctx.state.session!;
    const number = ctx.params.number!;
    const ok = !typed && ctx.query.sent === '1' ? 'The reply is queued on the chosen phone: it appears below with its status.' : undefined;
    page(
      ctx,
      `Conversation with ${number}`,
      'inbox',
      conversationView({
        csrf: s.csrf,
        number,
        lines,
        phones,
        replyable: replyable(number) !== undefined,
        form: typed?.form ?? { device_id: '', text: '' },
        errors: typed?.errors,
        ok,
      }),
    );
  }

  router.get('/inbox/:number', async (ctx) => {
    const number = ctx.params.number!;
    if (number.length > MAX_SENDER) throw new AppError('NOT_FOUND');
    conversationPage(ctx, await thread(up, ctx.state.session!.clientId, number));
  });
  router.post('/inbox/:number/reply', async (ctx) => {
    const number = ctx.params.number!;
    if (number.length > MAX_SENDER) throw new AppError('NOT_FOUND');
    const form = { device_id: field(ctx, 'device_id').slice(0, 100), text: (ctx.state.form?.get('text') ?? '').slice(0, 2000) };
    const result = await replyInThread(up, ctx.state.session!.clientId, number, form.device_id, form.text);
    if (!result.ok) {
      ctx.status = 400;
      const errors = 'refusal' in result ? { '': explain(result.refusal) } : result.errors;
      return conversationPage(ctx, result.thread, { form, errors });
    }
    ctx.redirect(`${conversationPath(number)}?sent=1`);
  });
}
