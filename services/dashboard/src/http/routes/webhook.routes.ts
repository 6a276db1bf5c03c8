import { AppError, parseMode } from '@smsgw/platform';
import {
  createEndpoint,
  deleteEndpoint,
  deliveryLog,
  listEndpoints,
  replayEvent,
  sendTestEvent,
  setEndpointBatch,
  setEndpointEnabled,
} from '../../use-cases/webhooks.use-case';
import { NEEDS_VERIFIED_ACCOUNT } from '../../views/account.view';
import { problemView } from '../../views/error.view';
import { deliveryLogView, webhooksView, type WebhooksNotes } from '../../views/webhooks.view';
import { recordAction } from '../../use-cases/audit.use-case';
import { actorOf, explain, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

export function webhookRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;
  // Test events and replays: one count per account.
  const testEvents = { up, redis: deps.redis, limit: deps.testEventLimit };

  async function webhooksPage(ctx: DashContext, extra: WebhooksNotes = {}) {
    const s = ctx.state.session!;
    const { endpoints, alertEmail, accountVerified } = await listEndpoints(up, s.clientId);
    const unverifiedAccount = accountVerified ? undefined : s.email;
    page(ctx, 'Webhooks', 'webhooks', webhooksView(s.csrf, endpoints, alertEmail, { ...extra, unverifiedAccount }));
  }

  /** Too many test events and replays: the page that says so. */
  function throttled(ctx: DashContext) {
    const limit = deps.testEventLimit;
    ctx.status = 429;
    const seconds = Math.ceil(limit.windowMs / 1000);
    page(
      ctx,
      'Too many test events',
      'webhooks',
      problemView(
        `Too many test events: an account may send ${limit.maxPerAccount} every ${seconds} seconds. Replays count with them. Wait a little and send it again.`,
        true,
      ),
    );
  }

  router.get('/webhooks', (ctx) => webhooksPage(ctx));
  router.post('/webhooks', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const created = await createEndpoint(up, s.clientId, {
        url: field(ctx, 'url'),
        events: ctx.state.form!.getAll('events'),
        mode: parseMode(field(ctx, 'mode')),
        batch: field(ctx, 'batch') === 'on',
      });
      await recordAction(up, actorOf(ctx), 'webhook.created', created.endpointId, { url: created.url, events: created.events });
      await webhooksPage(ctx, { created });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'ACCOUNT_NOT_VERIFIED' || err.code === 'LIMIT_REACHED') ctx.status = err.httpStatus;
      const error =
        err.code === 'VALIDATION_ERROR'
          ? 'Choose at least one kind of event.'
          : err.code === 'ACCOUNT_NOT_VERIFIED'
            ? NEEDS_VERIFIED_ACCOUNT
            : explain(err);
      await webhooksPage(ctx, { error });
    }
  });
  router.post('/webhooks/:endpointId/test', async (ctx) => {
    const s = ctx.state.session!;
    const sent = await sendTestEvent(testEvents, s.clientId, ctx.params.endpointId!, field(ctx, 'event'));
    if (sent === 'throttled') return throttled(ctx);
    ctx.redirect(`/webhooks/${ctx.params.endpointId}?sent=${encodeURIComponent(sent.eventId)}`);
  });
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(`/webhooks/:endpointId/${action}`, async (ctx) => {
      await setEndpointEnabled(up, ctx.state.session!.clientId, ctx.params.endpointId!, enabled);
      await recordAction(up, actorOf(ctx), 'webhook.changed', ctx.params.endpointId!, { change: action });
      ctx.redirect('/webhooks');
    });
  }
  for (const [action, batch] of [
    ['batch', true],
    ['single', false],
  ] as const) {
    router.post(`/webhooks/:endpointId/${action}`, async (ctx) => {
      await setEndpointBatch(up, ctx.state.session!.clientId, ctx.params.endpointId!, batch);
      await recordAction(up, actorOf(ctx), 'webhook.changed', ctx.params.endpointId!, { change: action });
      ctx.redirect('/webhooks');
    });
  }
  router.post('/webhooks/:endpointId/delete', async (ctx) => {
    await deleteEndpoint(up, ctx.state.session!.clientId, ctx.params.endpointId!);
    await recordAction(up, actorOf(ctx), 'webhook.deleted', ctx.params.endpointId!);
    ctx.redirect('/webhooks');
  });

  // One endpoint's delivery log: each delivery with its attempts, and a replay button.
  router.get('/webhooks/:endpointId', async (ctx) => {
    const s = ctx.state.session!;
    const { endpoint, deliveries } = await deliveryLog(up, s.clientId, ctx.params.endpointId!);
    const sent = typeof ctx.query.sent === 'string' ? ctx.query.sent : '';
    const replayed = typeof ctx.query.replayed === 'string' ? ctx.query.replayed : '';
    page(ctx, 'Delivery log', 'webhooks', deliveryLogView(s.csrf, endpoint, deliveries, { sent, replayed }));
  });
  router.post('/webhooks/:endpointId/replay', async (ctx) => {
    const eventId = field(ctx, 'event_id');
    if ((await replayEvent(testEvents, ctx.state.session!.clientId, ctx.params.endpointId!, eventId)) === 'throttled')
      return throttled(ctx);
    ctx.redirect(`/webhooks/${ctx.params.endpointId}?replayed=${encodeURIComponent(eventId)}`);
  });
}
