import type { message } from '@smsgw/proto';
import type { SettingsErrors, SettingsField, SettingsForm } from '../use-cases/opt-outs.use-case';
import { html, type SafeHtml } from './html';
import { csrfField, notice, when } from './layout';

export interface OptOutsPage {
  csrf: string;
  list: message.ListOptOutsResponse__Output;
  pageNo: number;
  /** The number typed in the add form, given back when refused. */
  typed?: string;
  addError?: string;
  settings: SettingsForm;
  settingsErrors?: SettingsErrors;
  ok?: string;
}

const SOURCES: Record<string, string> = { keyword: 'sent a keyword', api: 'added through the API', dashboard: 'added here' };

function fieldError(p: OptOutsPage, name: SettingsField): SafeHtml | string {
  const e = p.settingsErrors?.[name];
  return e ? html`<p class="error" id="s-${name}-error" data-error="${name}">${e}</p>` : '';
}

const invalid = (p: OptOutsPage, name: SettingsField) =>
  p.settingsErrors?.[name] ? html`aria-invalid="true" aria-describedby="s-${name}-error"` : '';

function listTable(p: OptOutsPage): SafeHtml {
  const { list, pageNo } = p;
  const csrf = csrfField({ csrf: p.csrf });
  if (list.optOuts.length === 0) return html`<p class="muted" data-empty>No number is on the list.</p>`;
  return html`<div class="table-wrap"><table id="opt-outs">
<caption>${list.totalItems} number${list.totalItems === 1 ? '' : 's'}, page ${list.page} of ${Math.max(1, list.totalPages)}</caption>
<thead><tr><th scope="col">Number</th><th scope="col">How</th><th scope="col">Since</th><th scope="col">Action</th></tr></thead>
<tbody>${list.optOuts.map(
    (o) => html`<tr data-opt-out="${o.phoneNumber}"><td>${o.phoneNumber}</td>
<td>${SOURCES[o.source] ?? o.source}${o.keyword ? html` (<code>${o.keyword}</code>)` : ''}</td><td>${when(o.createdAt)}</td>
<td><form method="post" action="/opt-outs/remove" data-confirm="Remove ${o.phoneNumber} from the list? Your SMS reach it again.">${csrf}<input type="hidden" name="phone_number" value="${o.phoneNumber}"><button type="submit" class="danger">Remove</button></form></td></tr>`,
  )}</tbody></table></div>
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="/opt-outs?page=${pageNo - 1}" rel="prev">Previous</a>` : ''} ${pageNo < list.totalPages ? html`<a href="/opt-outs?page=${pageNo + 1}" rel="next">Next</a>` : ''}</nav>`;
}

export function optOutsView(p: OptOutsPage): SafeHtml {
  const csrf = csrfField({ csrf: p.csrf });
  const s = p.settings;
  const general = p.settingsErrors ? (p.settingsErrors[''] ?? 'The settings were not saved: see the fields below.') : undefined;
  return html`${notice('ok', p.ok)}${notice('error', general)}
<p>The numbers on this list receive no SMS from you (live): a send to one of them is accepted but ends <code>failed</code> with <code>OPTED_OUT</code>, without reaching a phone.</p>
<form method="post" action="/opt-outs" class="card inline">${csrf}
  <div class="field"><label for="o-number">Add a number</label>
  <input id="o-number" name="phone_number" value="${p.typed ?? ''}" placeholder="+33612345678" maxlength="32" required ${p.addError ? html`aria-invalid="true" aria-describedby="o-number-error"` : ''}>
  ${p.addError ? html`<p class="error" id="o-number-error" data-error="phone_number">${p.addError}</p>` : ''}</div>
  <button type="submit">Add to the list</button>
</form>
${listTable(p)}
<section class="card">
  <h2>Keywords</h2>
  <p>A received SMS whose whole text is one of these words (case, accents and a final . or ! ignored) adds its sender to the list; a start keyword takes it off. Comma-separated, up to 20 each, letters, digits and spaces.</p>
  <form method="post" action="/opt-outs/settings" novalidate>${csrf}
    <div class="field"><label for="s-opt_out_keywords">Opt-out keywords</label>
    <input id="s-opt_out_keywords" name="opt_out_keywords" value="${s.opt_out_keywords}" placeholder="STOP, STOPALL, UNSUBSCRIBE, ARRET" ${invalid(p, 'opt_out_keywords')}>${fieldError(p, 'opt_out_keywords')}</div>
    <div class="field"><label for="s-start_keywords">Start keywords</label>
    <input id="s-start_keywords" name="start_keywords" value="${s.start_keywords}" placeholder="START" ${invalid(p, 'start_keywords')}>${fieldError(p, 'start_keywords')}</div>
    <div class="field"><label class="check"><input type="checkbox" name="otp_ignores_opt_out" value="on" ${s.otp_ignores_opt_out ? 'checked' : ''} ${invalid(p, 'otp_ignores_opt_out')}> One-time passwords go to numbers on the list anyway (the person asked for the code)</label>${fieldError(p, 'otp_ignores_opt_out')}</div>
    <button type="submit">Save the keywords</button>
  </form>
</section>`;
}
