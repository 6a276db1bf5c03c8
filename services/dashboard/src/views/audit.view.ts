import type { account } from '@smsgw/proto';
import { AUDIT_ACTIONS } from '@smsgw/platform';
import type { AuditFilter } from '../use-cases/audit.use-case';
import { html, type SafeHtml } from './html';
import { when } from './layout';

/** Every action's words: the compiler asks for one per action of AUDIT_ACTIONS. */
const ACTION_LABELS: Record<(typeof AUDIT_ACTIONS)[number], string> = {
  'user.signed_in': 'signed in',
  'user.sign_in_failed': 'failed sign-in',
  'member.invited': 'member invited',
  'member.invitation_withdrawn': 'invitation withdrawn',
  'member.joined': 'member joined',
  'member.role_changed': 'role changed',
  'member.removed': 'member removed',
  'key.created': 'key created',
  'key.revoked': 'key revoked',
  'secret.shown': 'signing secret shown',
  'secret.rotated': 'signing secret rotated',
  'phone.added': 'phone added (pairing issued)',
  'phone.credentials_rotated': 'phone pairing renewed',
  'phone.revoked': 'phone tokens revoked',
  'phone.removed': 'phone removed',
  'webhook.created': 'webhook endpoint created',
  'webhook.changed': 'webhook endpoint changed',
  'webhook.deleted': 'webhook endpoint deleted',
  'settings.changed': 'settings changed',
  'password.changed': 'password changed',
  'two_factor.enabled': 'two-factor turned on',
  'two_factor.disabled': 'two-factor turned off',
  'two_factor.required': 'two-factor requirement changed',
  'smpp.created': 'SMPP credential created',
  'smpp.revoked': 'SMPP credential revoked',
};

const labelOf = (action: string): string => (ACTION_LABELS as Record<string, string>)[action] ?? action;

/** What an event's details say, briefly (a key's name, mode and limits). */
function parsedDetails(json: string): Record<string, unknown> {
  try {
    return JSON.parse(json || '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}

function detailsOf(e: account.AuditEvent__Output): string {
  const d = parsedDetails(e.detailsJson);
  const parts: string[] = [];
  if (typeof d.label === 'string') parts.push(`"${d.label}"`);
  if (typeof d.mode === 'string') parts.push(d.mode);
  if (Array.isArray(d.scopes) && d.scopes.length) parts.push(`scopes ${d.scopes.join(', ')}`);
  if (Array.isArray(d.ip_ranges) && d.ip_ranges.length) parts.push(`from ${d.ip_ranges.join(', ')}`);
  if (typeof d.daily_quota === 'number' && d.daily_quota > 0) parts.push(`${d.daily_quota} SMS a day`);
  if (typeof d.role === 'string') parts.push(`role ${d.role}`);
  if (typeof d.from === 'string' && typeof d.to === 'string') parts.push(`${d.from} → ${d.to}`);
  if (typeof d.setting === 'string') parts.push(d.setting);
  if (typeof d.name === 'string') parts.push(`"${d.name}"`);
  if (typeof d.url === 'string') parts.push(d.url);
  if (typeof d.change === 'string') parts.push(d.change);
  if (d.second_factor) parts.push(typeof d.second_factor === 'string' ? `second factor: ${d.second_factor}` : 'second factor');
  if (typeof d.required === 'boolean') parts.push(d.required ? 'required' : 'not required');
  return parts.join(' · ');
}

/** The filters as a query string (for the CSV link and the next page). */
export function auditQuery(filter: AuditFilter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  if (filter.action) q.set('action', filter.action);
  if (filter.actor) q.set('actor', filter.actor);
  if (filter.from) q.set('from', filter.from);
  if (filter.to) q.set('to', filter.to);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

export function auditView(events: account.AuditEvent__Output[], filter: AuditFilter, older?: string): SafeHtml {
  return html`<p>Who did what to the account (sign-ins, members, keys, SMPP credentials, secrets, phones, webhooks, settings), when and from where. Records cannot be changed and are kept for a year.</p>
<form method="get" action="/audit" class="card inline">
  <label for="audit-action">Action</label><select id="audit-action" name="action"><option value="">every action</option>${AUDIT_ACTIONS.map(
    (a) => html`<option value="${a}" ${filter.action === a ? 'selected' : ''}>${labelOf(a)}</option>`,
  )}</select>
  <label for="audit-actor">Who</label><input id="audit-actor" name="actor" type="text" maxlength="254" value="${filter.actor ?? ''}" placeholder="an e-mail">
  <label for="audit-from">From (UTC)</label><input id="audit-from" name="from" type="date" value="${filter.from ?? ''}">
  <label for="audit-to">To (UTC)</label><input id="audit-to" name="to" type="date" value="${filter.to ?? ''}">
  <button type="submit">Filter</button>
  <a href="/audit.csv${auditQuery(filter)}" download>Export as CSV</a>
</form>
<div class="table-wrap"><table>
<caption>The audit log, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">From</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Details</th></tr></thead>
<tbody>${events.length === 0 ? html`<tr><td colspan="6">Nothing recorded${filter.action || filter.actor || filter.from || filter.to ? ' for these filters' : ' yet'}.</td></tr>` : ''}${events.map(
    (e) =>
      html`<tr><td>${when(e.at)}</td><td>${e.actor}</td><td>${e.address ? html`<code>${e.address}</code>` : ''}</td><td>${labelOf(e.action)}</td><td><code>${e.target}</code></td><td>${detailsOf(e)}</td></tr>`,
  )}</tbody></table></div>
${older ? html`<p><a href="/audit${auditQuery(filter, { before: older })}">Older</a></p>` : ''}`;
}
