import { modeFromProto } from '@smsgw/platform';
import type { webhook } from '@smsgw/proto';
import { html, type SafeHtml } from './html';
import { accountNotice } from './account.view';
import { copyable, csrfField, notice, when } from './layout';

// otp.fraud_suspected, device.degraded, device.recovered, device.battery_low and device.offline are opt-in: an endpoint gets them only when ticked.
const KINDS = [
  'sms.sent',
  'sms.delivered',
  'sms.failed',
  'sms.received',
  'device.connected',
  'device.disconnected',
  'otp.fraud_suspected',
  'device.degraded',
  'device.recovered',
  'device.battery_low',
  'device.offline',
];
const BATCH_LABEL = 'Send in batches: up to 100 events in one POST (a JSON array), within a second of the first';

export interface WebhooksNotes {
  /** An endpoint just made: its secret is shown this once. */
  created?: { url: string; secret: string };
  ok?: string;
  error?: string;
  /** The owner's address while the account is not verified: no endpoint can be added then. */
  unverifiedAccount?: string;
}

export function webhooksView(csrfToken: string, endpoints: webhook.Endpoint__Output[], alertEmail: string, extra: WebhooksNotes): SafeHtml {
  const csrf = csrfField({ csrf: csrfToken });
  const form = extra.unverifiedAccount
    ? accountNotice(csrfToken, extra.unverifiedAccount)
    : html`<form method="post" action="/webhooks" class="card">
  ${csrf}
  <label for="wh-url">HTTPS URL</label><input id="wh-url" name="url" type="url" required placeholder="https://example.com/webhooks/sms">
  <fieldset><legend>Events</legend>${KINDS.map((k) => html`<label class="check"><input type="checkbox" name="events" value="${k}" ${k.startsWith('sms') ? 'checked' : ''}> ${k}</label>`)}</fieldset>
  <label for="wh-mode">Mode</label><select id="wh-mode" name="mode"><option value="live">live</option><option value="test">test (events of test keys)</option></select>
  <label class="check"><input type="checkbox" id="wh-batch" name="batch" value="on"> ${BATCH_LABEL}</label>
  <button type="submit">Add the endpoint</button>
</form>`;
  return html`${notice('ok', extra.ok)}${notice('error', extra.error)}
${extra.created ? html`<div class="card reveal" role="status"><p><strong>Endpoint created for ${extra.created.url}.</strong> Its secret signs every delivery (<code>X-Webhook-Signature</code>); it is shown only now.</p>${copyable('Endpoint secret', extra.created.secret, 'endpoint-secret')}</div>` : ''}
${form}
<div class="table-wrap"><table>
<caption>Global endpoints. Alert e-mails go to <strong>${alertEmail}</strong> (<a href="/settings">change</a>).</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Mode</th><th scope="col">Form</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${endpoints.map(
    (e) => html`<tr data-endpoint="${e.endpointId}">
  <td><a href="/webhooks/${e.endpointId}">${e.url}</a></td><td>${e.events.join(', ')}</td><td>${modeFromProto(e.mode)}</td>
  <td data-form="${e.batch ? 'batch' : 'single'}">${e.batch ? 'batches of up to 100' : 'one event a POST'}</td>
  <td>${e.enabled ? 'enabled' : 'disabled'}</td>
  <td class="actions">
    <form method="post" action="/webhooks/${e.endpointId}/test">${csrf}<label class="sr" for="kind-${e.endpointId}">Kind of test event</label><select id="kind-${e.endpointId}" name="event">${KINDS.map((k) => html`<option>${k}</option>`)}</select><button type="submit">Send a test event</button></form>
    <form method="post" action="/webhooks/${e.endpointId}/${e.enabled ? 'disable' : 'enable'}">${csrf}<button type="submit">${e.enabled ? 'Disable' : 'Enable'}</button></form>
    <form method="post" action="/webhooks/${e.endpointId}/${e.batch ? 'single' : 'batch'}">${csrf}<button type="submit">${e.batch ? 'Send one event a POST' : 'Send in batches'}</button></form>
    <form method="post" action="/webhooks/${e.endpointId}/delete" data-confirm="Delete this endpoint? Its pending deliveries are dropped.">${csrf}<button type="submit" class="danger">Delete</button></form>
  </td>
</tr>`,
  )}</tbody></table></div>`;
}

/** One endpoint's delivery log: each delivery with its attempts, and a replay button. */
export function deliveryLogView(
  csrfToken: string,
  endpoint: webhook.Endpoint__Output,
  deliveries: webhook.Delivery__Output[],
  done: { sent: string; replayed: string },
): SafeHtml {
  const csrf = csrfField({ csrf: csrfToken });
  const { sent, replayed } = done;
  return html`${notice('ok', sent ? `Test event ${sent} sent.` : replayed ? `Event ${replayed} replayed.` : undefined)}
<p>Endpoint <code>${endpoint.url}</code> · ${endpoint.events.join(', ')}${endpoint.batch ? ' · in batches (each event keeps its own line and attempts here)' : ''} · <a href="/webhooks">all endpoints</a></p>
<div class="table-wrap"><table>
<caption>Deliveries, newest first (kept 30 days)</caption>
<thead><tr><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col"></th></tr></thead>
<tbody>${deliveries.map(
    (d) => html`<tr data-delivery="${d.deliveryId}">
  <td><code>${d.event}</code><br><code class="small">${d.eventId}</code>${d.replayOf ? html`<br><span class="muted">replay</span>` : ''}</td>
  <td><span class="status ${d.state}">${d.state}</span>${d.nextAttemptAt ? html`<br><span class="muted">next ${when(d.nextAttemptAt)}</span>` : ''}</td>
  <td><ol class="attempts">${d.attempts.map((a) => html`<li>#${a.attempt} ${when(a.attemptedAt)} · ${a.httpStatus ? `HTTP ${a.httpStatus}` : 'no answer'} · ${a.latencyMs} ms${a.error ? html` · <span class="error">${a.error}</span>` : ''}</li>`)}</ol></td>
  <td><form method="post" action="/webhooks/${endpoint.endpointId}/replay">${csrf}<input type="hidden" name="event_id" value="${d.eventId}"><button type="submit">Replay</button></form></td>
</tr>`,
  )}</tbody></table></div>`;
}
