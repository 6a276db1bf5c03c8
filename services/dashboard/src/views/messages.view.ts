import type { message } from '@smsgw/proto';
import { dayChart } from './chart';
import { html, trusted, type SafeHtml } from './html';
import { notice, when } from './layout';
import type { MessageFilters } from '../use-cases/messages.use-case';
import type { Mode } from '../use-cases/upstreams';

const STATUSES = ['queued', 'sent', 'delivered', 'failed', 'cancelled'];

/** A message's status as the pages show it: `sent` past its report deadline reads "sent, no report". */
const statusLabel = (m: Pick<message.Message__Output, 'status' | 'noReport'>): string =>
  m.status === 'sent' && m.noReport ? 'sent, no report' : m.status;

export function modeSwitch(mode: Mode, path: string): SafeHtml {
  return html`<p class="modes">Data: <a href="${path}" ${mode === 'live' ? html`aria-current="true"` : ''}>live</a> · <a href="${path}?mode=test" ${mode === 'test' ? html`aria-current="true"` : ''}>test</a></p>`;
}

/** The steps a message went through, each with its time. */
function timeline(m: message.Message__Output): SafeHtml {
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
    .map(
      ([label, at]) =>
        html`<li class="${label.toLowerCase().split(' ')[0]}"><strong>${label}</strong> ${when(at)}${label === 'Failed' && m.errorCode ? html`: <code>${m.errorCode}</code> ${m.errorMessage}` : ''}</li>`,
    )}</ol>`;
}

/** Each phone's try at the message, oldest first; the last is the current one. */
function attemptsTable(m: message.Message__Output): SafeHtml | string {
  if (m.attempts.length === 0) return '';
  const last = m.attempts.length - 1;
  return html`<h2>Attempts</h2>
<div class="table-wrap"><table id="attempts">
<caption>Each phone's try, oldest first: a message moves to another phone when its phone stays offline, is removed, or refused it without sending</caption>
<thead><tr><th scope="col">#</th><th scope="col">Phone</th><th scope="col">SIM</th><th scope="col">Status</th><th scope="col">Error</th><th scope="col">Time</th></tr></thead>
<tbody>${m.attempts.map(
    (a, i) =>
      html`<tr data-attempt="${i + 1}"><td>${i + 1}${i === last ? html` <span class="muted">(current)</span>` : ''}</td><td><code class="small">${a.deviceId || '—'}</code></td><td data-attempt-sim>${a.sim || '—'}</td><td><span class="status ${a.status}">${a.status}</span>${a.reconciled ? html` <span class="muted" data-reconciled>(repaired from the phone's digest: ${a.reconciled.replace('_', ' ')})</span>` : ''}</td><td>${a.errorCode ? html`<code>${a.errorCode}</code> ${a.errorMessage}` : html`<span class="muted">none</span>`}</td><td>${when(a.at)}</td></tr>`,
  )}</tbody></table></div>`;
}

export interface MessagesPage {
  mode: Mode;
  filters: MessageFilters;
  pageNo: number;
  /** Absent when the filters were refused (`error` says why). */
  list?: message.ListMessagesResponse__Output;
  error?: string;
  /** The address of another page of the same list. */
  link(page: number): string;
}

export function messagesView(p: MessagesPage): SafeHtml {
  const { mode, filters, pageNo, list } = p;
  return html`${modeSwitch(mode, '/messages')}${notice('error', p.error)}
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
${
  list
    ? html`<div class="table-wrap"><table>
<caption>${list.totalItems} message${list.totalItems === 1 ? '' : 's'}, page ${list.page} of ${Math.max(1, list.totalPages)}</caption>
<thead><tr><th scope="col">Created</th><th scope="col">To</th><th scope="col">Text</th><th scope="col">Status</th><th scope="col">Phone</th></tr></thead>
<tbody>${list.messages.map(
        (m) =>
          html`<tr><td>${when(m.createdAt)}</td><td>${m.to}</td><td class="text"><a href="/messages/${m.messageId}${mode === 'test' ? '?mode=test' : ''}">${m.text.length > 60 ? `${m.text.slice(0, 60)}…` : m.text}</a></td><td><span class="status ${m.status}">${statusLabel(m)}</span></td><td><code class="small">${m.deviceId}</code></td></tr>`,
      )}</tbody></table></div>
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="${p.link(pageNo - 1)}" rel="prev">Previous</a>` : ''} ${pageNo < list.totalPages ? html`<a href="${p.link(pageNo + 1)}" rel="next">Next</a>` : ''}</nav>`
    : ''
}`;
}

export function messageView(m: message.Message__Output, mode: Mode): SafeHtml {
  return html`<section class="card">
  <dl class="facts">
    <dt>To</dt><dd>${m.to}</dd>
    <dt>Text</dt><dd class="text">${m.text}</dd>
    <dt>Status</dt><dd><span class="status ${m.status}" data-status>${statusLabel(m)}</span>${m.noReport ? html` <span class="muted">(no delivery report came within its validity: the network may never send one)</span>` : ''}</dd>
    <dt>Phone</dt><dd><code>${m.deviceId}</code> ${m.pinned ? html`<span class="muted" data-pinned>(pinned: it stays on this phone)</span>` : html`<span class="muted">(not pinned: it may move to another of your phones)</span>`}</dd>
    <dt>SIM</dt><dd data-sim>${m.sim ? `SIM ${m.sim}` : "the phone's default"}${m.requestedSim ? html` <span class="muted">(asked for SIM ${m.requestedSim})</span>` : ''}</dd>
    ${m.replies ? html`<dt>Replies</dt><dd data-replies>replies from ${m.to} within 24 hours also go to its webhook URL</dd>` : ''}
    ${m.expiresAt ? html`<dt>Expires</dt><dd data-expires>${when(m.expiresAt)} <span class="muted">(fails with EXPIRED if no phone took it by then)</span></dd>` : ''}
    <dt>Parts</dt><dd>${m.parts} (${m.encoding})</dd>
    ${m.batchId ? html`<dt>Batch</dt><dd><code>${m.batchId}</code></dd>` : ''}
    ${m.metadataJson ? html`<dt>Metadata</dt><dd><code>${m.metadataJson}</code></dd>` : ''}
  </dl>
</section>
<h2>Timeline</h2>
${timeline(m)}
${attemptsTable(m)}
<p><a href="/messages${mode === 'test' ? '?mode=test' : ''}">Back to the messages</a></p>`;
}

export function statsView(mode: Mode, days: number, stats: message.GetStatsResponse__Output): SafeHtml {
  return html`${modeSwitch(mode, '/stats')}
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
<figure class="card">${trusted(dayChart(stats.byDay))}<figcaption>By UTC day, ${stats.from.slice(0, 10)} to ${stats.to.slice(0, 10)}</figcaption></figure>`;
}
