import type { devicehub } from '@smsgw/proto';
import { lineChart } from './chart';
import { html, trusted, type SafeHtml } from './html';
import { csrfField, when } from './layout';

type Health = devicehub.DeviceHealth__Output;
type Sample = devicehub.TelemetrySample__Output;

const RISKS: Record<string, string> = {
  battery_optimized: 'battery optimisation is on: Android may stop the app in the background',
  sms_restricted: 'the SMS permission is restricted (Android 15 and later, sideloaded apps): allow restricted settings, then grant it',
  no_boot_start: 'the app does not start when the phone boots',
};

const batteryText = (t: Sample) => (t.battery >= 0 ? `${t.battery} %` : 'unknown');

function current(t: Sample): SafeHtml {
  const sims = t.sims.length
    ? t.sims.map(
        (s) =>
          html`<li data-sim-signal="${s.slot}">SIM ${s.slot}: ${s.network}${s.level >= 0 ? `, signal ${s.level}/4` : ''}${s.dbm ? ` (${s.dbm} dBm)` : ''}</li>`,
      )
    : html`<li>unknown</li>`;
  const risks = t.risks.length
    ? html`<ul id="phone-risks">${t.risks.map((r) => html`<li data-risk="${r}">${RISKS[r] ?? r}</li>`)}</ul>`
    : html`<span id="phone-risks" data-risks="none">none reported</span>`;
  return html`<dl class="facts" id="telemetry">
    <dt>Reported</dt><dd>${when(t.at)}</dd>
    <dt>Battery</dt><dd data-battery="${t.battery}">${batteryText(t)}${t.charging ? ', charging' : ', not charging'}${t.battery >= 0 && t.battery <= 15 && !t.charging ? html` <strong class="error">low</strong>` : ''}</dd>
    <dt>Network</dt><dd><ul class="plain">${sims}</ul></dd>
    <dt>Free storage</dt><dd>${Number(t.storageFreeMb) >= 0 ? `${t.storageFreeMb} MiB` : 'unknown'}</dd>
    <dt>App version</dt><dd data-app-version>${t.appVersion || 'unknown'}</dd>
    <dt>Android</dt><dd>${t.androidVersion || 'unknown'}</dd>
    <dt>May be stopped by the system</dt><dd>${risks}</dd>
  </dl>`;
}

function batteryChart(samples: Sample[]): SafeHtml {
  const points = samples.map((s) => ({ label: s.at.slice(11, 16), value: s.battery >= 0 ? s.battery : null }));
  return trusted(lineChart(points, 100, `Battery over the last day: ${samples.length} samples`, '%'));
}

function settingsState(h: Health): SafeHtml {
  if (!h.settingsVersion)
    return html`<p id="settings-state" data-settings="none">No settings pushed yet: the phone's app does not take them (protocol 6), or it has not connected since.</p>`;
  if (h.settingsAppliedVersion === h.settingsVersion)
    return html`<p id="settings-state" data-settings="applied">Its limits, hours and SIM rule as set here: applied by the phone ${when(h.settingsAppliedAt)}.</p>`;
  return html`<p id="settings-state" data-settings="pending">Its limits, hours and SIM rule were pushed ${when(h.settingsSentAt)}; the phone has not said it applied them yet.</p>`;
}

/** The phone's health (protocol 6): its state now, its battery over the day, its log on request, its settings' state. */
export function phoneHealthView(deviceId: string, csrf: string, online: boolean, h: Health | undefined): SafeHtml {
  if (!h) return html`<section class="card"><h2>Health</h2><p>Its health cannot be read right now.</p></section>`;
  const latest = h.samples[h.samples.length - 1];
  const waiting = h.logRequestedAt && (!h.logReceivedAt || h.logReceivedAt < h.logRequestedAt);
  return html`<section class="card" id="health">
  <h2>Health</h2>
  ${latest ? html`${current(latest)}${batteryChart(h.samples)}` : html`<p data-telemetry="none">The phone has reported nothing of its battery or signal: its app is older than protocol 6, or it has not connected since.</p>`}
  ${settingsState(h)}
</section>
<section class="card" id="diagnostics">
  <h2>Its log</h2>
  <p>The app's recent log, as the phone sends it when asked: phone numbers and message texts are masked on the phone.</p>
  <form method="post" action="/phones/${deviceId}/log">${csrfField({ csrf })}<button type="submit" ${online ? '' : 'disabled'}>Ask the phone for its log</button>${online ? '' : html` <span class="muted">(it must be online)</span>`}</form>
  ${waiting ? html`<p id="log-waiting">Asked ${when(h.logRequestedAt)}; waiting for the phone's answer. Reload the page in a moment.</p>` : ''}
  ${h.logReceivedAt ? html`<p>Received ${when(h.logReceivedAt)}, ${h.logLines.length} lines:</p><pre class="phone-log" id="phone-log">${h.logLines.join('\n')}</pre>` : ''}
</section>`;
}
