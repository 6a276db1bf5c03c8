import { AppError, parseMode } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { getMessage, listMessages, statistics } from '../../use-cases/messages.use-case';
import { messagesView, messageView, statsView } from '../../views/messages.view';
import { explain, page, type AppDeps, type DashContext, type DashRouter } from '../context';

const q = (ctx: DashContext, name: string) => (typeof ctx.query[name] === 'string' ? ctx.query[name].trim() : '');
const modeOf = (ctx: DashContext) => parseMode(q(ctx, 'mode'));

export function messageRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  router.get('/messages', async (ctx) => {
    const s = ctx.state.session!;
    const mode = modeOf(ctx);
    const filters = {
      status: q(ctx, 'status'),
      to: q(ctx, 'to'),
      deviceId: q(ctx, 'device_id'),
      search: q(ctx, 'search'),
      fromDate: q(ctx, 'from_date'),
      toDate: q(ctx, 'to_date'),
    };
    const pageNo = Math.max(1, Number(q(ctx, 'page')) || 1);
    let list: message.ListMessagesResponse__Output | undefined;
    let error: string | undefined;
    try {
      list = await listMessages(up, s.clientId, mode, pageNo, filters);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      error = explain(err);
    }
    const link = (p: number) => {
      const params = new URLSearchParams();
      for (const k of ['status', 'to', 'search', 'device_id', 'from_date', 'to_date', 'mode']) if (q(ctx, k)) params.set(k, q(ctx, k));
      params.set('page', String(p));
      return `/messages?${params.toString()}`;
    };
    page(ctx, 'Messages', 'messages', messagesView({ mode, filters, pageNo, list, error, link }));
  });

  router.get('/messages/:messageId', async (ctx) => {
    const mode = modeOf(ctx);
    const m = await getMessage(up, ctx.state.session!.clientId, mode, ctx.params.messageId!);
    page(ctx, `Message ${m.messageId}`, 'messages', messageView(m, mode));
  });

  router.get('/stats', async (ctx) => {
    const mode = modeOf(ctx);
    const days = Math.min(90, Math.max(1, Number(q(ctx, 'days')) || 30));
    const stats = await statistics(up, ctx.state.session!.clientId, mode, days);
    page(ctx, 'Statistics', 'statistics', statsView(mode, days, stats));
  });
}
