import type { message } from '@smsgw/proto';
import type { Mapping, Preview } from '../use-cases/campaign-csv';
import { html, type SafeHtml } from './html';
import { csrfField, notice, when } from './layout';

const STATES = ['queued', 'held', 'sent', 'delivered', 'failed', 'cancelled'] as const;

const megabytes = (bytes: number | string) => `${(Number(bytes) / (1024 * 1024)).toFixed(1)} MB`;

/** The files kept for campaigns not sent yet: each can be taken up again, or discarded to make room. */
function waitingView(csrf: string, waiting: message.ListCampaignUploadsResponse__Output): SafeHtml | string {
  if (waiting.uploads.length === 0) return '';
  const rows = waiting.uploads.map(
    (u) => html`<tr data-upload="${u.uploadId}"><td><a href="/campaigns/new/${u.uploadId}">${u.name}</a></td><td>${u.fileName}</td>
<td>${u.rowCount}</td><td>${megabytes(u.byteSize)}</td><td>${when(u.expiresAt)}</td>
<td><form method="post" action="/campaigns/new/${u.uploadId}/discard">${csrfField({ csrf })}<button type="submit" class="secondary">Discard</button></form></td></tr>`,
  );
  return html`<div class="table-wrap"><table id="waiting-uploads">
<caption>Files waiting to be sent: ${waiting.uploads.length} of ${waiting.maxUploads}, ${megabytes(waiting.bytes)} of ${megabytes(waiting.maxBytes)}</caption>
<thead><tr><th scope="col">Campaign</th><th scope="col">File</th><th scope="col">Rows</th><th scope="col">Size</th><th scope="col">Expires</th><th scope="col"></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export function campaignsView(
  list: message.ListCampaignsResponse__Output,
  pageNo: number,
  uploads?: { csrf: string; waiting: message.ListCampaignUploadsResponse__Output },
): SafeHtml {
  const rows = list.campaigns.map(
    (c) => html`<tr data-campaign="${c.campaignId}"><td><a href="/campaigns/${c.campaignId}">${c.name}</a></td>
<td><span class="status ${c.status}">${c.status}</span></td><td>${c.total}</td><td>${c.delivered}</td><td>${c.failed}</td>
<td>${c.queued + c.held + c.sent}</td><td>${when(c.createdAt)}</td></tr>`,
  );
  return html`<p><a href="/campaigns/new" class="button">New campaign</a></p>
<p>A campaign sends a personalised SMS to every row of a CSV file, spread over your online phones (live account).</p>
${uploads ? waitingView(uploads.csrf, uploads.waiting) : ''}
${
  list.campaigns.length === 0
    ? html`<p class="muted" data-empty>No campaign yet.</p>`
    : html`<div class="table-wrap"><table id="campaigns">
<caption>${list.totalItems} campaign${list.totalItems === 1 ? '' : 's'}, page ${list.page} of ${Math.max(1, list.totalPages)}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Messages</th><th scope="col">Delivered</th><th scope="col">Failed</th><th scope="col">Under way</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody></table></div>
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="/campaigns?page=${pageNo - 1}" rel="prev">Previous</a>` : ''} ${pageNo < list.totalPages ? html`<a href="/campaigns?page=${pageNo + 1}" rel="next">Next</a>` : ''}</nav>`
}`;
}

/** Step 1: the file. The page's script reads the chosen file into the text field; without it, the file's content is pasted there. */
export function uploadView(csrf: string, typed: { name: string }, error?: string): SafeHtml {
  return html`${notice('error', error)}
<form method="post" action="/campaigns/new" class="card" data-csv-upload>${csrfField({ csrf })}
  <h2>1. Upload a CSV file</h2>
  <p>A header row, then one row per message (at most 10,000 rows, 100 columns, 8,800 characters a cell and 2 MB); comma or semicolon separated, UTF-8. Files are kept an hour, until their campaign is sent; an account keeps at most 5 at once.</p>
  <label for="c-name">Campaign name</label>
  <input id="c-name" name="name" value="${typed.name}" maxlength="100" required>
  <label for="c-file">CSV file</label>
  <input id="c-file" type="file" accept=".csv,text/csv,text/plain" data-csv-file>
  <input type="hidden" name="file_name" value="" data-csv-name>
  <details><summary>Or paste the file's content</summary>
  <label for="c-csv">Content of the file</label>
  <textarea id="c-csv" name="csv" rows="6" data-csv-text></textarea></details>
  <button type="submit">Upload</button>
</form>`;
}

/** Step 2: which column is the number, and the text. */
export function mappingView(p: {
  csrf: string;
  uploadId: string;
  headers: string[];
  mapping: Mapping;
  rows: number;
  fileName: string;
  error?: string;
}): SafeHtml {
  return html`${notice('error', p.error)}
<form method="post" action="/campaigns/new/${p.uploadId}/preview" class="card">${csrfField({ csrf: p.csrf })}
  <h2>2. Map the columns</h2>
  <p>${p.fileName ? html`<code>${p.fileName}</code>: ` : ''}${p.rows} row${p.rows === 1 ? '' : 's'}, columns ${p.headers.map((h, n) => html`${n > 0 ? ', ' : ''}<code>${h}</code>`)}.</p>
  <label for="c-phone">Column of the phone numbers</label>
  <select id="c-phone" name="phone_column">${p.headers.map((h) => html`<option value="${h}" ${h === p.mapping.phoneColumn ? 'selected' : ''}>${h}</option>`)}</select>
  <label for="c-text">Text of the messages</label>
  <textarea id="c-text" name="text" rows="4" required>${p.mapping.template}</textarea>
  <p class="muted">Put a column's value in the text with <code>{{column}}</code>, for example <code>Hello {{${p.headers[0] ?? 'name'}}}</code>.</p>
  <label><input type="checkbox" name="encrypted" value="yes" ${p.mapping.encrypted ? 'checked' : ''}> The texts are encrypted</label>
  <p class="muted">Encrypted: the column holds end-to-end envelopes (<code>$smsgw-e2e$v1$…</code>, sealed with your phones' passphrase), and the text is that column alone. They are sent as they are: the phone opens them.</p>
  <button type="submit">Preview</button>
</form>`;
}

/** Step 3: the first messages, the good rows' count and every refused row; the button that sends. */
export function previewView(p: {
  csrf: string;
  uploadId: string;
  name: string;
  mapping: Mapping;
  preview: Preview;
  error?: string;
}): SafeHtml {
  const { good, bad } = p.preview;
  const parts = good.reduce((sum, g) => sum + g.parts, 0);
  return html`${notice('error', p.error)}
<section class="card">
  <h2>3. Preview of “${p.name}”</h2>
  <p data-good="${good.length}"><strong>${good.length}</strong> message${good.length === 1 ? '' : 's'} to send (${parts} SMS part${parts === 1 ? '' : 's'}), <strong data-bad-count="${bad.length}">${bad.length}</strong> row${bad.length === 1 ? '' : 's'} refused.</p>
  ${
    good.length > 0
      ? html`<div class="table-wrap"><table id="preview"><caption>The first ${Math.min(10, good.length)} messages</caption>
<thead><tr><th scope="col">Line</th><th scope="col">Number</th><th scope="col">Text</th><th scope="col">Parts</th><th scope="col">Encoding</th></tr></thead>
<tbody>${good.slice(0, 10).map((g) => (g.encrypted ? html`<tr><td>${g.line}</td><td>${g.to}</td><td class="text">${g.text.slice(0, 40)}…</td><td colspan="2">encrypted: the phone knows</td></tr>` : html`<tr><td>${g.line}</td><td>${g.to}</td><td class="text">${g.text}</td><td>${g.parts}</td><td>${g.encoding}</td></tr>`))}</tbody></table></div>`
      : ''
  }
  <form method="post" action="/campaigns/new/${p.uploadId}/send">${csrfField({ csrf: p.csrf })}
    <input type="hidden" name="phone_column" value="${p.mapping.phoneColumn}">
    <input type="hidden" name="text" value="${p.mapping.template}">
    ${p.mapping.encrypted ? html`<input type="hidden" name="encrypted" value="yes">` : ''}
    ${good.length > 0 ? html`<button type="submit">Send ${good.length} message${good.length === 1 ? '' : 's'}</button>` : ''}
    <a href="/campaigns/new/${p.uploadId}">Change the mapping</a>
  </form>
</section>
${
  bad.length > 0
    ? html`<section class="card"><div class="table-wrap"><table id="bad-rows"><caption>Rows not sent</caption>
<thead><tr><th scope="col">Line</th><th scope="col">Reason</th></tr></thead>
<tbody>${bad.map((b) => html`<tr data-line="${b.line}"><td>${b.line}</td><td>${b.reason}</td></tr>`)}</tbody></table></div></section>`
    : ''
}`;
}

/** A campaign's counts, drawn again every few seconds by the page's script while it is under way. */
export function campaignView(c: message.Campaign__Output, csrf: string, error?: string): SafeHtml {
  const done = c.delivered + c.failed + c.cancelled;
  const underWay = c.status !== 'cancelled' && c.queued + c.held + c.sent > 0;
  const move = (action: string, label: string, confirm?: string) =>
    html`<form method="post" action="/campaigns/${c.campaignId}/${action}" ${confirm ? html`data-confirm="${confirm}"` : ''}>${csrfField({ csrf })}<button type="submit" ${action === 'cancel' ? html`class="danger"` : ''}>${label}</button></form>`;
  return html`${notice('error', error)}
<section class="card" data-refresh="${underWay ? '2000' : ''}" aria-live="polite">
  <p>Status: <span class="status ${c.status}" data-campaign-status>${c.status}</span> · created ${when(c.createdAt)}</p>
  <p><label for="c-progress">${done} of ${c.total} finished</label>
  <progress id="c-progress" max="${Math.max(1, c.total)}" value="${done}">${done} of ${c.total}</progress></p>
  <div class="tiles">${STATES.map((s) => html`<div class="tile"><span class="label">${s}</span><span class="big" data-count="${s}">${c[s]}</span></div>`)}</div>
</section>
<div class="card inline">
  ${c.status === 'running' ? move('pause', 'Pause') : ''}
  ${c.status === 'paused' ? move('resume', 'Resume') : ''}
  ${c.status !== 'cancelled' ? move('cancel', 'Cancel', 'Cancel this campaign? Its messages not yet taken by a phone are never sent.') : ''}
  <a href="/campaigns/${c.campaignId}">Refresh</a> · <a href="/messages">Messages</a>
</div>`;
}
