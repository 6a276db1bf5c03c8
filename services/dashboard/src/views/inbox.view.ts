import { MAX_SMS_CHARACTERS } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import { INBOX_WINDOW, type Conversation, type Line, type ReplyErrors } from '../use-cases/inbox.use-case';
import { html, type SafeHtml } from './html';
import { csrfField, notice, when } from './layout';

/** A conversation's address: the number URL-encoded (`+` as %2B). */
export const conversationPath = (number: string) => `/inbox/${encodeURIComponent(number)}`;

const short = (text: string) => (Array.from(text).length > 80 ? `${Array.from(text).slice(0, 80).join('')}…` : text);

export function inboxView(list: Conversation[], truncated: boolean, error?: string): SafeHtml {
  return html`${notice('error', error)}
<p>The SMS your phones received (live), by sender, the latest first. Open one to read the whole conversation and answer it.</p>
<form method="get" action="/inbox/open" class="card inline">
  <label for="open-number">Open the conversation of a number</label><input id="open-number" name="number" required placeholder="+33612345678" maxlength="32">
  <button type="submit">Open</button>
</form>
${
  list.length === 0
    ? html`<p class="muted" data-empty>No SMS received yet.</p>`
    : html`<div class="table-wrap"><table id="conversations">
<caption>${list.length} conversation${list.length === 1 ? '' : 's'}${truncated ? ` (from the latest ${INBOX_WINDOW} SMS received: open an older one by its number)` : ''}</caption>
<thead><tr><th scope="col">From</th><th scope="col">Last SMS</th><th scope="col">Received</th><th scope="col">SMS</th></tr></thead>
<tbody>${list.map(
        (c) =>
          html`<tr data-conversation="${c.number}"><td><a href="${conversationPath(c.number)}">${c.number}</a></td><td class="text">${short(c.lastText)}</td><td>${when(c.lastAt)}</td><td>${c.count}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

export interface ConversationPage {
  csrf: string;
  number: string;
  lines: Line[];
  phones: devicehub.Device__Output[];
  /** Whether the number can be answered (an international number). */
  replyable: boolean;
  /** The reply as typed, given back when refused. */
  form: { device_id: string; text: string };
  errors?: ReplyErrors;
  ok?: string;
}

/** An end-to-end envelope (docs/api/encryption.md): opened only in the browser, with the passphrase typed there. */
const isEnvelope = (text: string): boolean => text.startsWith('$smsgw-e2e$v1$');

function lineView(l: Line): SafeHtml {
  return html`<li class="line ${l.kind}" data-line="${l.kind}" data-id="${l.id}">
  <p class="text"${isEnvelope(l.text) ? html` data-envelope` : ''}>${l.text}</p>
  <p class="meta">${l.kind === 'in' ? 'Received' : 'Sent'} ${when(l.at)} · <code class="small">${l.deviceId}</code>${
    l.kind === 'out' ? html` · <a href="/messages/${l.id}"><span class="status ${l.status}">${l.status}</span></a>` : ''
  }</p>
</li>`;
}

function fieldError(errors: ReplyErrors | undefined, name: 'device_id' | 'text'): SafeHtml | string {
  const e = errors?.[name];
  return e ? html`<p class="error" id="r-${name}-error" data-error="${name}">${e}</p>` : '';
}

function replyForm(p: ConversationPage): SafeHtml {
  if (!p.replyable)
    return html`<p class="muted" data-no-reply>This sender is a name or a short code, not a phone number: it cannot be answered by SMS.</p>`;
  if (p.phones.length === 0) return html`<p class="muted" data-no-reply>Add a phone to answer: <a href="/phones">Phones</a>.</p>`;
  const invalid = (name: 'device_id' | 'text') => (p.errors?.[name] ? html`aria-invalid="true" aria-describedby="r-${name}-error"` : '');
  const chosen = p.form.device_id || p.phones.find((d) => d.status === 'online')?.deviceId;
  return html`<form method="post" action="${conversationPath(p.number)}/reply" class="card reply">${csrfField({ csrf: p.csrf })}
  <div class="field"><label for="r-device_id">Send from</label>
  <select id="r-device_id" name="device_id" ${invalid('device_id')}>${p.phones.map(
    (d) => html`<option value="${d.deviceId}" ${d.deviceId === chosen ? 'selected' : ''}>${d.name || d.deviceId} (${d.status})</option>`,
  )}</select>${fieldError(p.errors, 'device_id')}</div>
  <div class="field"><label for="r-text">Reply to ${p.number}</label>
  <textarea id="r-text" name="text" rows="4" maxlength="${MAX_SMS_CHARACTERS}" required ${invalid('text')}>${p.form.text}</textarea>${fieldError(p.errors, 'text')}</div>
  <button type="submit">Send the reply</button>
</form>`;
}

/**
 * The passphrase of encrypted texts, used by the page's script only: no form, so that it is never
 * sent to the server (and never lands in a URL).
 */
function decryptBox(): SafeHtml {
  return html`<div class="card" data-open-envelopes>
  <label for="e2e-passphrase">Passphrase of the encrypted texts</label>
  <input type="password" id="e2e-passphrase" autocomplete="off">
  <button type="button">Decrypt in this browser</button>
  <p class="muted small" data-envelope-status>The passphrase stays in this browser: the texts are decrypted here.</p>
</div>`;
}

export function conversationView(p: ConversationPage): SafeHtml {
  return html`${notice('ok', p.ok)}${notice('error', p.errors ? (p.errors[''] ?? 'The reply was not sent: see the fields below.') : undefined)}
${
  p.lines.length === 0
    ? html`<p class="muted" data-empty>No SMS from or to this number yet.</p>`
    : html`<ol class="conversation" aria-label="Conversation, oldest first">${p.lines.map(lineView)}</ol>`
}
${p.lines.some((l) => isEnvelope(l.text)) ? decryptBox() : ''}
${replyForm(p)}
<p><a href="/inbox">Back to the inbox</a></p>`;
}
