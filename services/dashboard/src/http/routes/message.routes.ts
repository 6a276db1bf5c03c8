import { AppError, modeToProto, parseMode } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { dayChart } from '../../views/chart';
import { notice, when } from '../../views/layout';
import { explain, page, type AppDeps, type DashContext, type DashRouter } from '../app';
import { html, trusted } from '../html';

const STATUSES = ['queued', 'sent', 'delivered', 'failed', 'cancelled'];
const q = (ctx: DashContext, name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name]).trim() : '');
const modeOf = (ctx: DashContext) => parseMode(q(ctx, 'mode'));

function modeSwitch(ctx: DashContext, path: string) {
  const mode = modeOf(ctx);
  return html`<p class="modes">Data: <a href="${path}" ${mode === 'live' ? html`aria-current="true"` : ''}>live</a> · <a href="${path}?mode=test" ${mode === 'test' ? html`aria-current="true"` : ''}>test</a></p>`;
}

/** The steps a message went through, each with its time. */
function timeline(m: message.Message__Output) {
  const steps: [string, string][] = [
    ['Queued', m.queuedAt || m.createdAt],
    ...(m.scheduledAt ? ([['Scheduled for', m.scheduledAt]] as [string, string][]) : []),
    ['Sent', m.sentAt],
    ['Delivered', m.deliveredAt],
    ['Failed', m.failedAt],
    ['Cancelled', m.cancelledAt],
  ];
  return html`<ol class="timeline">${steps
    .filter(([, at]) => at)
    .map(([label, at]) => html`<li class="${label.toLowerCase().split(' ')[0]}"><strong>${label}</strong> ${when(at)}${label === 'Failed' && m.errorCode ? html`: <code>${m.errorCode}</code> ${m.errorMessage}` : ''}</li>`)}</ol>`;
}

export function messageRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;

  router.get('/messages', async (ctx) => {
    const s = ctx.state.session!;
    const mode = modeOf(ctx);
    const filters = { status: q(ctx, 'status'), to: q(ctx, 'to'), deviceId: q(ctx, 'device_id'), search: q(ctx, 'search'), fromDate: q(ctx, 'from_date'), toDate: q(ctx, 'to_date') };
    const pageNo = Math.max(1, Number(q(ctx, 'page')) || 1);
    let list: message.ListMessagesResponse__Output | undefined;
    let error: string | undefined;
    try {
      list = await up.messages.listMessages({ clientId: s.clientId, mode: modeToProto(mode), page: pageNo, limit: 25, ...filters });
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
    page(
      ctx,
      'Messages',
      'messages',
      html`${modeSwitch(ctx, '/messages')}${notice('error', error)}
<form method="get" action="/messages" class="card filters">
  ${mode === 'test' ? html`<input type="hidden" name="mode" value="test">` : ''}
  <label for="f-status">Status</label><select id="f-status" name="status"><option value="">any</option>${STATUSES.map((st) => html`<option ${filters.status === st ? 'selected' : ''}>${st}</option>`)}</select>
  <label for="f-to">Recipient</label><input id="f-to" name="to" value="${filters.to}" placeholder="+33612345678">
  <label for="f-search">Text contains</label><input id="f-search" name="search" value="${filters.search}" minlength="3">
  <label for="f-device">Phone id</label><input id="f-device" name="device_id" value="${filters.deviceId}">
  <label for="f-from">From</label><input id="f-from" name="from_date" type="date" value="${filters.fromDate.slice(0, 10)}">
  <label for="f-until">To</label><input id="f-until" name="to_date" type="date" value="${filters.toDate.slice(0, 10)}">
  <button type="submit">Filter</button>
</form>
${list
  ? html`<div class="table-wrap"><table>
<caption>${list.totalItems} message${list.totalItems === 1 ? '' : 's'}, page ${list.page} of ${Math.max(1, list.totalPages)}</caption>
<thead><tr><th scope="col">Created</th><th scope="col">To</th><th scope="col">Text</th><th scope="col">Status</th><th scope="col">Phone</th></tr></thead>
<tbody>${list.messages.map(
      (m) => html`<tr><td>${when(m.createdAt)}</td><td>${m.to}</td><td class="text"><a href="/messages/${m.messageId}${mode === 'test' ? '?mode=test' : ''}">${m.text.length > 60 ? `${m.text.slice(0, 60)}…` : m.text}</a></td><td><span class="status ${m.status}">${m.status}</span></td><td><code class="small">${m.deviceId}</code></td></tr>`,
    )}</tbody></table></div>
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="${link(pageNo - 1)}" rel="prev">Previous</a>` : ''} ${pageNo < list.totalPages ? html`<a href="${link(pageNo + 1)}" rel="next">Next</a>` : ''}</nav>`
  : ''}`,
    );
  });

  router.get('/messages/:messageId', async (ctx) => {
    const s = ctx.state.session!;
    const mode = modeOf(ctx);
    const m = await up.messages.getMessage({ clientId: s.clientId, messageId: ctx.params.messageId!, mode: modeToProto(mode) });
    page(
      ctx,
      `Message ${m.messageId}`,
      'messages',
      html`<section class="card">
  <dl class="facts">
    <dt>To</dt><dd>${m.to}</dd>
    <dt>Text</dt><dd class="text">${m.text}</dd>
    <dt>Status</dt><dd><span class="status ${m.status}">${m.status}</span></dd>
    <dt>Phone</dt><dd><code>${m.deviceId}</code></dd>
    <dt>Parts</dt><dd>${m.parts} (${m.encoding})</dd>
    ${m.batchId ? html`<dt>Batch</dt><dd><code>${m.batchId}</code></dd>` : ''}
    ${m.metadataJson ? html`<dt>Metadata</dt><dd><code>${m.metadataJson}</code></dd>` : ''}
  </dl>
</section>
<h2>Timeline</h2>
${timeline(m)}
<p><a href="/messages${mode === 'test' ? '?mode=test' : ''}">Back to the messages</a></p>`,
    );
  });

  router.get('/stats', async (ctx) => {
    const s = ctx.state.session!;
    const mode = modeOf(ctx);
    const days = Math.min(90, Math.max(1, Number(q(ctx, 'days')) || 30));
    const to = new Date();
    const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) - (days - 1) * 86_400_000);
    const stats = await up.messages.getStats({ clientId: s.clientId, mode: modeToProto(mode), fromDate: from.toISOString(), toDate: to.toISOString(), deviceId: '' });
    page(
      ctx,
      'Statistics',
      'statistics',
      html`${modeSwitch(ctx, '/stats')}
<form method="get" action="/stats" class="card inline">
  ${mode === 'test' ? html`<input type="hidden" name="mode" value="test">` : ''}
  <label for="days">Period</label>
  <select id="days" name="days">${[1, 7, 30, 90].map((d) => html`<option value="${d}" ${d === days ? 'selected' : ''}>last ${d} day${d === 1 ? '' : 's'}</option>`)}</select>
  <button type="submit">Show</button>
</form>
<section class="tiles">
  <div class="tile"><span class="label">Sent</span><span class="big" data-stat="sent">${stats.totalSent}</span></div>
  <div class="tile"><span class="label">Delivered</span><span class="big" data-stat="delivered">${stats.delivered}</span></div>
  <div class="tile"><span class="label">Failed</span><span class="big" data-stat="failed">${stats.failed}</span></div>
  <div class="tile"><span class="label">Delivery rate</span><span class="big" data-stat="rate">${stats.deliveryRate.toFixed(2)} %</span></div>
</section>
<figure class="card">${trusted(dayChart(stats.byDay))}<figcaption>By UTC day, ${stats.from.slice(0, 10)} to ${stats.to.slice(0, 10)}</figcaption></figure>`,
    );
  });
}
