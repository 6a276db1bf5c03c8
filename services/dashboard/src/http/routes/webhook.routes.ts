import { AppError, modeFromProto, modeToProto, parseMode } from '@smsgw/platform';
import { copyable, csrfField, notice, when } from '../../views/layout';
import { explain, field, page, type AppDeps, type DashContext, type DashRouter } from '../app';
import { html } from '../html';

const KINDS = ['sms.sent', 'sms.delivered', 'sms.failed', 'device.connected', 'device.disconnected'];

export function webhookRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  async function webhooksPage(ctx: DashContext, extra: { created?: { url: string; secret: string }; ok?: string; error?: string } = {}) {
    const s = ctx.state.session!;
    const [{ endpoints }, client] = await Promise.all([up.webhooks.listEndpoints({ clientId: s.clientId }), up.accounts.getClient({ clientId: s.clientId })]);
    const csrf = csrfField({ csrf: s.csrf });
    page(
      ctx,
      'Webhooks',
      'webhooks',
      html`${notice('ok', extra.ok)}${notice('error', extra.error)}
${extra.created ? html`<div class="card reveal" role="status"><p><strong>Endpoint created for ${extra.created.url}.</strong> Its secret signs every delivery (<code>X-Webhook-Signature</code>); it is shown only now.</p>${copyable('Endpoint secret', extra.created.secret, 'endpoint-secret')}</div>` : ''}
<form method="post" action="/webhooks" class="card">
  ${csrf}
  <label for="wh-url">HTTPS URL</label><input id="wh-url" name="url" type="url" required placeholder="https://example.com/webhooks/sms">
  <fieldset><legend>Events</legend>${KINDS.map((k) => html`<label class="check"><input type="checkbox" name="events" value="${k}" ${k.startsWith('sms') ? 'checked' : ''}> ${k}</label>`)}</fieldset>
  <label for="wh-mode">Mode</label><select id="wh-mode" name="mode"><option value="live">live</option><option value="test">test (events of test keys)</option></select>
  <button type="submit">Add the endpoint</button>
</form>
<div class="table-wrap"><table>
<caption>Global endpoints. Alert e-mails go to <strong>${client.email}</strong> (<a href="/settings">change</a>).</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Mode</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${endpoints.map(
        (e) => html`<tr data-endpoint="${e.endpointId}">
  <td><a href="/webhooks/${e.endpointId}">${e.url}</a></td><td>${e.events.join(', ')}</td><td>${modeFromProto(e.mode)}</td>
  <td>${e.enabled ? 'enabled' : 'disabled'}</td>
  <td class="actions">
    <form method="post" action="/webhooks/${e.endpointId}/test">${csrf}<label class="sr" for="kind-${e.endpointId}">Kind of test event</label><select id="kind-${e.endpointId}" name="event">${KINDS.map((k) => html`<option>${k}</option>`)}</select><button type="submit">Send a test event</button></form>
    <form method="post" action="/webhooks/${e.endpointId}/${e.enabled ? 'disable' : 'enable'}">${csrf}<button type="submit">${e.enabled ? 'Disable' : 'Enable'}</button></form>
    <form method="post" action="/webhooks/${e.endpointId}/delete" data-confirm="Delete this endpoint? Its pending deliveries are dropped.">${csrf}<button type="submit" class="danger">Delete</button></form>
  </td>
</tr>`,
      )}</tbody></table></div>`,
    );
  }

  router.get('/webhooks', (ctx) => webhooksPage(ctx));
  router.post('/webhooks', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const e = await up.webhooks.createEndpoint({
        clientId: s.clientId,
        url: field(ctx, 'url'),
        events: ctx.state.form!.getAll('events'),
        mode: modeToProto(parseMode(field(ctx, 'mode'))),
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
    const csrf = csrfField({ csrf: s.csrf });
    const sent = typeof ctx.query.sent === 'string' ? ctx.query.sent : '';
    const replayed = typeof ctx.query.replayed === 'string' ? ctx.query.replayed : '';
    page(
      ctx,
      'Delivery log',
      'webhooks',
      html`${notice('ok', sent ? `Test event ${sent} sent.` : replayed ? `Event ${replayed} replayed.` : undefined)}
<p>Endpoint <code>${endpoint.url}</code> · ${endpoint.events.join(', ')} · <a href="/webhooks">all endpoints</a></p>
<div class="table-wrap"><table>
<caption>Deliveries, newest first (kept 30 days)</caption>
<thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col"></th></tr></thead>
<tbody>${deliveries.map(
        (d) => html`<tr data-delivery="${d.deliveryId}">
  <td><code>${d.event}</code><br><code class="small">${d.eventId}</code>${d.replayOf ? html`<br><span class="muted">replay</span>` : ''}</td>
  <td><span class="status ${d.state}">${d.state}</span>${d.nextAttemptAt ? html`<br><span class="muted">next ${when(d.nextAttemptAt)}</span>` : ''}</td>
  <td><ol class="attempts">${d.attempts.map((a) => html`<li>#${a.attempt} ${when(a.attemptedAt)} · ${a.httpStatus ? `HTTP ${a.httpStatus}` : 'no answer'} · ${a.latencyMs} ms${a.error ? html` · <span class="error">${a.error}</span>` : ''}</li>`)}</ol></td>
  <td><form method="post" action="/webhooks/${endpointId}/replay">${csrf}<input type="hidden" name="event_id" value="${d.eventId}"><button type="submit">Replay</button></form></td>
</tr>`,
      )}</tbody></table></div>`,
    );
  });
  router.post('/webhooks/:endpointId/replay', async (ctx) => {
    const eventId = field(ctx, 'event_id');
    await up.webhooks.replayEvent({ clientId: ctx.state.session!.clientId, eventId, endpointId: ctx.params.endpointId! });
    ctx.redirect(`/webhooks/${ctx.params.endpointId}?replayed=${encodeURIComponent(eventId)}`);
  });
}
