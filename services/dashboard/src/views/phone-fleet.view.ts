import type { devicehub } from '@smsgw/proto';
import { html, type SafeHtml } from './html';
import { csrfField } from './layout';

const minutes = (seconds: number) => {
  const m = Math.round((seconds / 60) * 100) / 100;
  return `${m} minute${m === 1 ? '' : 's'}`;
};

/**
 * The settings for all the account's phones (Phones page): the offline warning's delay and the
 * SIM health thresholds each phone follows unless it has its own.
 */
export function phoneFleetSection(
  csrf: string,
  now: devicehub.FleetSettings__Output,
  form: Record<string, string>,
  error?: string,
): SafeHtml {
  const s = now.simHealth;
  const input = (name: string, label: string, mode = 'numeric') =>
    html`<div class="field"><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${form[name] ?? ''}" inputmode="${mode}"></div>`;
  const offline =
    now.offlineAlertSeconds > 0
      ? html`<span data-offline-alert="${now.offlineAlertSeconds}">after ${minutes(now.offlineAlertSeconds)} offline</span>`
      : html`<span data-offline-alert="0">never</span>`;
  return html`<section class="card" id="phone-settings">
  <h2>Settings for all phones</h2>
  <p>When a phone stays offline longer than this delay, you get an e-mail, and the <code>device.offline</code> event on the webhooks that chose it: once, until the phone connects again. 0 turns the warning off.</p>
  <p>The SIM health thresholds below apply to each phone that has none of its own (its page shows which it follows).</p>
  <form method="post" action="/phones/settings" class="limits" novalidate>${csrfField({ csrf })}
    ${error ? html`<p class="error" data-error="phone-settings">${error}</p>` : ''}
    <fieldset><legend>Offline warning</legend>
      ${input('offline_alert_minutes', 'Warn me after this many minutes offline', 'decimal')}
    </fieldset>
    <fieldset><legend>Quarantine a SIM after (0 turns a rule off)</legend>
      ${input('consecutive_failures', 'Failures in a row')}
      ${input('failure_ratio', 'Or this percentage of failures')}
      ${input('window', 'among its last results')}
      ${input('min_sample', 'Minimum results for the ratio')}
      ${input('cool_down_seconds', 'Cool-down before a probe, in seconds')}
    </fieldset>
    <button type="submit">Save the settings for all phones</button>
  </form>
  <p class="hint">Now: offline warning ${offline}; SIMs quarantined after ${s?.consecutiveFailures ?? 0} failures in a row, or ${s?.failureRatio ?? 0} % of the last ${s?.window ?? 0} (at least ${s?.minSample ?? 0}); cool-down ${s?.coolDownSeconds ?? 0} s.</p>
</section>`;
}
