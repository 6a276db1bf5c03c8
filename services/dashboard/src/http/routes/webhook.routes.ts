import { AppError } from '@smsgw/platform';
import { deliveryLogView, webhooksView, type WebhooksNotes } from '../../views/webhooks.view';
import { explain, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

export function webhookRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  async function webhooksPage(ctx: DashContext, extra: WebhooksNotes = {}) {
    const s = ctx.state.session!;
    const [{ endpoints }, client] = await Promise.all([up.webhooks.listEndpoints({ clientId: s.clientId }), up.accounts.getClient({ clientId: s.clientId })]);
    page(ctx, 'Webhooks', 'webhooks', webhooksView(s.csrf, endpoints, client.email, extra));
  }

  router.get('/webhooks', (ctx) => webhooksPage(ctx));
  router.post('/webhooks', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const e = await up.webhooks.createEndpoint({
        clientId: s.clientId,
        url: field(ctx, 'url'),
        events: ctx.state.form!.getAll('events'),
        mode: field(ctx, 'mode') === 'test' ? 'MODE_TEST' : 'MODE_LIVE',
        description: '',
      });
      await webhooksPage(ctx, { created: { url: e.url, secret: e.secret } });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await webhooksPage(ctx, { error: err.code === 'VALIDATION_ERROR' ? 'Choose at least one kind of event.' : explain(err) });
    }
  });
  router.post('/webhooks/:endpointId/test', async (ctx) => {
    const sent = await up.webhooks.sendTestEvent({ clientId: ctx.state.session!.clientId, endpointId: ctx.params.endpointId!, event: field(ctx, 'event') });
    ctx.redirect(`/webhooks/${ctx.params.endpointId}?sent=${encodeURIComponent(sent.eventId)}`);
  });
  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    router.post(`/webhooks/:endpointId/${action}`, async (ctx) => {
      await up.webhooks.updateEndpoint({ clientId: ctx.state.session!.clientId, endpointId: ctx.params.endpointId!, url: '', events: [], setEnabled: true, enabled, setDescription: false, description: '' });
      ctx.redirect('/webhooks');
    });
  }
  router.post('/webhooks/:endpointId/delete', async (ctx) => {
    await up.webhooks.deleteEndpoint({ clientId: ctx.state.session!.clientId, endpointId: ctx.params.endpointId! });
    ctx.redirect('/webhooks');
  });

  // One endpoint's delivery log: each delivery with its attempts, and a replay button.
  router.get('/webhooks/:endpointId', async (ctx) => {
    const s = ctx.state.session!;
    const endpointId = ctx.params.endpointId!;
    const { endpoints } = await up.webhooks.listEndpoints({ clientId: s.clientId });
    const endpoint = endpoints.find((e) => e.endpointId === endpointId);
    if (!endpoint) throw new AppError('NOT_FOUND');
    const { deliveries } = await up.webhooks.listDeliveries({ clientId: s.clientId, endpointId, eventId: '', limit: 50, before: '' });
    const sent = typeof ctx.query.sent === 'string' ? ctx.query.sent : '';
    const replayed = typeof ctx.query.replayed === 'string' ? ctx.query.replayed : '';
    page(ctx, 'Delivery log', 'webhooks', deliveryLogView(s.csrf, endpoint, deliveries, { sent, replayed }));
  });
  router.post('/webhooks/:endpointId/replay', async (ctx) => {
    const eventId = field(ctx, 'event_id');
    await up.webhooks.replayEvent({ clientId: ctx.state.session!.clientId, eventId, endpointId: ctx.params.endpointId! });
    ctx.redirect(`/webhooks/${ctx.params.endpointId}?replayed=${encodeURIComponent(eventId)}`);
  });
}
