import type { devicehub } from '@smsgw/proto';
import { html, type SafeHtml } from './html';
import { csrfField, when } from './layout';

const CAUSES: Record<string, string> = {
  sent: 'sent',
  generic_failure: 'generic failure',
  limit_exceeded: 'limit exceeded',
  no_service: 'no service',
  radio_off: 'radio off',
  no_credit: 'no credit',
  recipient_failure: "recipient's failure",
};

const REASONS: Record<string, string> = {
  consecutive_failures: 'too many failures in a row',
  failure_ratio: 'too many failures among its recent messages',
};

/** The phone's SIM slots as the health shows them: its SIMs, else slot 1 (one SIM, or not known). */
function slotsOf(d: devicehub.Device__Output): number[] {
  const slots = new Set<number>(d.sims.length > 0 ? d.sims.map((s) => s.slot) : [1]);
  for (const h of d.simHealth) slots.add(h.slot);
  return [...slots].sort((a, b) => a - b);
}

/** Each SIM's health: its state, why it is quarantined, its recent results by cause, and the release by hand. */
export function simHealthSection(d: devicehub.Device__Output, csrf: string, form: Record<string, string>, error?: string): SafeHtml {
  const s = d.simHealthSettings;
  const row = (slot: number) => {
    const h = d.simHealth.find((x) => x.slot === slot);
    const state = h?.state ?? 'healthy';
    const results = (h?.recent ?? []).map((r) => `${CAUSES[r.cause] ?? r.cause}: ${r.count}`).join(', ') || 'none yet';
    const why =
      state === 'healthy'
        ? ''
        : html`${REASONS[h!.reason] ?? h!.reason}, since ${when(h!.since)}; ${state === 'probing' ? 'a probe message is out' : html`one probe message after ${when(h!.probeAfter)}`}`;
    const release =
      state === 'healthy'
        ? ''
        : html`<form method="post" action="/phones/${d.deviceId}/sims/${slot}/release">${csrfField({ csrf })}<button type="submit">Release SIM ${slot}</button></form>`;
    return html`<tr data-health-slot="${slot}" data-state="${state}"><th scope="row">SIM ${slot}</th><td><span class="state ${state === 'healthy' ? 'online' : 'offline'}">${state}</span></td><td data-reason>${why}</td><td data-results>${results}</td><td>${release}</td></tr>`;
  };
  const input = (name: string, label: string) =>
    html`<div class="field"><label for="h-${name}">${label}</label><input id="h-${name}" name="${name}" value="${form[name] ?? ''}" inputmode="numeric" pattern="[0-9]*"></div>`;
  return html`<section class="card" id="sim-health">
  <h2>SIM health</h2>
  <p>A SIM whose sends keep failing (blocked by its carrier, out of credit, no service) is quarantined: no new message goes to it, its messages go out through your other SIMs and phones (those that asked for it, or for this phone only, wait). You get an e-mail, and the <code>device.degraded</code> event on the webhooks that chose it. After the cool-down one probe message goes to it: if it is sent, the SIM is released (<code>device.recovered</code>).</p>
  <div class="table-wrap"><table id="sim-health-table">
  <thead><tr><th scope="col">SIM</th><th scope="col">State</th><th scope="col">Why</th><th scope="col">Recent results</th><th scope="col"></th></tr></thead>
  <tbody>${slotsOf(d).map(row)}</tbody>
  </table></div>
  <form method="post" action="/phones/${d.deviceId}/sim-health" class="limits" novalidate>${csrfField({ csrf })}
    ${error ? html`<p class="error" data-error="sim-health">${error}</p>` : ''}
    <fieldset><legend>Quarantine a SIM after (0 turns a rule off)</legend>
      ${input('consecutive_failures', 'Failures in a row')}
      ${input('failure_ratio', 'Or this percentage of failures')}
      ${input('window', 'among its last results')}
      ${input('min_sample', 'Minimum results for the ratio')}
      ${input('cool_down_seconds', 'Cool-down before a probe, in seconds')}
    </fieldset>
    <button type="submit">Save the SIM health thresholds of this phone</button>
  </form>
  ${
    d.simHealthOwn
      ? html`<form method="post" action="/phones/${d.deviceId}/sim-health">${csrfField({ csrf })}<input type="hidden" name="follow_account" value="1"><button type="submit">Use the thresholds for all phones instead</button></form>`
      : ''
  }
  <p class="hint" data-sim-health-source="${d.simHealthOwn ? 'phone' : 'account'}">${d.simHealthOwn ? "This phone's own thresholds" : html`The <a href="/phones#phone-settings">thresholds for all phones</a>`}: ${s?.consecutiveFailures ?? 0} failures in a row, or ${s?.failureRatio ?? 0} % of the last ${s?.window ?? 0} (at least ${s?.minSample ?? 0}); cool-down ${s?.coolDownSeconds ?? 0} s.</p>
</section>`;
}

/** The form's values from the phone's settings. */
export function healthForm(d: devicehub.Device__Output): Record<string, string> {
  const s = d.simHealthSettings;
  return {
    consecutive_failures: String(s?.consecutiveFailures ?? 0),
    failure_ratio: String(s?.failureRatio ?? 0),
    window: String(s?.window ?? 0),
    min_sample: String(s?.minSample ?? 0),
    cool_down_seconds: String(s?.coolDownSeconds ?? 0),
  };
}

/** The phones list's mark of the SIMs not healthy (empty when all are). */
export function quarantinedNote(d: devicehub.Device__Output): SafeHtml | string {
  const out = d.simHealth.filter((h) => h.state !== 'healthy').map((h) => h.slot);
  if (out.length === 0) return '';
  return html` <a class="state offline" data-quarantined="${out.join(',')}" href="/phones/${d.deviceId}#sim-health">${out.map((slot) => `SIM ${slot}`).join(', ')} quarantined</a>`;
}
