import { modeFromProto } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { SMPP_BIND_TYPES, type SmppBindTypeForm } from '../use-cases/smpp.use-case';
import { confirmField } from './account.view';
import { html, type SafeHtml } from './html';
import { copyable, csrfField, notice, when } from './layout';

export interface SmppPage {
  csrf: string;
  credentials: account.SmppCredential__Output[];
  phones: { deviceId: string; name: string }[];
  /** The credential just made: its password is shown this once. */
  fresh?: { systemId: string; password: string; label: string };
  error?: string;
  typed?: { label: string; bindType: SmppBindTypeForm; mode: string; deviceId: string };
  /** Where SMPP clients connect, as the operator set it. */
  server: string;
}

const BIND_LABELS: Record<string, string> = {
  SMPP_BIND_TYPE_TRANSMITTER: 'transmitter (sends)',
  SMPP_BIND_TYPE_RECEIVER: 'receiver (receipts, received SMS)',
  SMPP_BIND_TYPE_TRANSCEIVER: 'transceiver (both)',
};

export function smppView(p: SmppPage): SafeHtml {
  const csrf = csrfField({ csrf: p.csrf });
  const typed = p.typed ?? { label: '', bindType: 'transceiver', mode: 'live', deviceId: '' };
  const phoneName = (id: string) => p.phones.find((d) => d.deviceId === id)?.name ?? id;
  return html`${notice('error', p.error)}
<p>Software that speaks SMPP 3.4 (a CRM, an SMS router such as Jasmin or Kannel) binds to <code>${p.server}</code> over TLS with a system id and password made here, and sends through your phones with the same rules and rate limit as the API.</p>
${p.fresh ? html`<div class="card reveal" role="status"><p><strong>Your new SMPP credential "${p.fresh.label}".</strong> Copy the password now: it is shown only once.</p>${copyable('system_id', p.fresh.systemId, 'new-system-id')}${copyable('password', p.fresh.password, 'new-smpp-password')}</div>` : ''}
<form method="post" action="/smpp" class="card">${csrf}
  <label for="smpp-label">Name</label><input id="smpp-label" name="label" required maxlength="100" placeholder="CRM" value="${typed.label}">
  <label for="smpp-bind">Bind type</label><select id="smpp-bind" name="bind_type">${SMPP_BIND_TYPES.map(
    (t) => html`<option value="${t}" ${typed.bindType === t ? 'selected' : ''}>${t}</option>`,
  )}</select>
  <label for="smpp-mode">Mode</label><select id="smpp-mode" name="mode"><option value="live" ${typed.mode === 'live' ? 'selected' : ''}>live</option><option value="test" ${typed.mode === 'test' ? 'selected' : ''}>test (the simulated phone)</option></select>
  <label for="smpp-device">Phone that sends (optional: else the fleet's rules choose)</label><select id="smpp-device" name="device_id"><option value="">any phone</option>${p.phones.map(
    (d) => html`<option value="${d.deviceId}" ${typed.deviceId === d.deviceId ? 'selected' : ''}>${d.name}</option>`,
  )}</select>
  ${confirmField('smpp-password', 'Your password')}
  <button type="submit">Create an SMPP credential</button>
</form>
${
  p.credentials.length === 0
    ? html`<p class="muted" data-empty>No SMPP credential yet.</p>`
    : html`<div class="table-wrap"><table id="smpp-credentials">
<caption>Your SMPP credentials, newest first</caption>
<thead><tr><th scope="col">Name</th><th scope="col">system_id</th><th scope="col">Bind type</th><th scope="col">Mode</th><th scope="col">Phone</th><th scope="col">Created</th><th scope="col">Last bound</th><th scope="col">State</th></tr></thead>
<tbody>${p.credentials.map(
        (c) => html`<tr data-system-id="${c.systemId}">
  <td>${c.label}</td><td><code>${c.systemId}</code></td><td>${BIND_LABELS[c.bindType] ?? c.bindType}</td><td>${modeFromProto(c.mode)}</td><td>${c.deviceId ? phoneName(c.deviceId) : 'any'}</td><td>${when(c.createdAt)}</td><td>${when(c.lastBoundAt)}</td>
  <td>${c.revokedAt ? html`revoked ${when(c.revokedAt)}` : html`<form method="post" action="/smpp/${c.credentialId}/revoke" data-confirm="Revoke this credential? Its next binds are refused.">${csrf}<button type="submit" class="danger">Revoke</button></form>`}</td>
</tr>`,
      )}</tbody></table></div>`
}`;
}
