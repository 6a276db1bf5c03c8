import type { devicehub, message } from '@smsgw/proto';
import type { LimitErrors, LimitField, LimitsForm } from '../use-cases/phone-limits.use-case';
import { html, type SafeHtml } from './html';
import { csrfField, notice, when } from './layout';
import { healthForm, simHealthSection } from './sim-health.view';
import { phoneHealthView } from './phone-health.view';

/** Whether the phone may send now, in words. */
export function roomBadge(d: devicehub.Device__Output): SafeHtml {
  if (!d.hasRoom)
    return html`<span class="state offline" data-room="no">waiting: a limit is reached, it is outside its sending hours, or its SIMs are quarantined</span>`;
  return d.status === 'online'
    ? html`<span class="state online" data-room="yes">may send now</span>`
    : html`<span class="state" data-room="yes">its limits leave room; it sends once online</span>`;
}

const limitText = (limit: number) => (limit > 0 ? String(limit) : 'no limit');

/** What the phone sent in each window against its limit. */
function usageTable(d: devicehub.Device__Output): SafeHtml {
  const u = d.usage ?? { lastMinute: 0, lastHour: 0, lastDay: 0 };
  const l = d.limits;
  const rows: [string, number, number][] = [
    ['Last minute', u.lastMinute, l?.perMinute ?? 0],
    ['Last hour', u.lastHour, l?.perHour ?? 0],
    ['Last 24 hours', u.lastDay, l?.perDay ?? 0],
  ];
  return html`<div class="table-wrap"><table id="usage">
<caption>Use of its limits (sliding windows)</caption>
<thead><tr><th scope="col">Window</th><th scope="col">SMS sent</th><th scope="col">Limit</th></tr></thead>
<tbody>${rows.map(([label, used, limit]) => html`<tr><th scope="row">${label}</th><td data-used>${used}</td><td data-limit>${limitText(limit)}</td></tr>`)}</tbody>
</table></div>`;
}

/**
 * The SIMs the phone reported when it last connected, with what each sent in
 * the windows of the limits (which apply to each SIM of a phone with several).
 */
function simsTable(d: devicehub.Device__Output): SafeHtml {
  if (d.sims.length === 0)
    return html`<p id="sims" data-sims="unknown">Its SIMs are not known: it has not connected with an app that reports them (protocol 4). It sends through its default SIM unless a message asks for one.</p>`;
  const perSim = d.sims.length > 1;
  return html`<div class="table-wrap"><table id="sims">
<caption>SIMs${perSim ? ' (the limits apply to each SIM)' : ''}</caption>
<thead><tr><th scope="col">Slot</th><th scope="col">Carrier</th><th scope="col">Number</th>${perSim ? html`<th scope="col">Last minute / hour / 24 hours</th><th scope="col">Room</th>` : ''}</tr></thead>
<tbody>${d.sims.map((sim) => {
    const u = sim.usage ?? { lastMinute: 0, lastHour: 0, lastDay: 0 };
    return html`<tr data-slot="${sim.slot}"><th scope="row">SIM ${sim.slot}</th><td>${sim.carrier || 'unknown'}</td><td>${sim.number || 'unknown'}</td>${
      perSim ? html`<td data-sim-used>${u.lastMinute} / ${u.lastHour} / ${u.lastDay}</td><td>${sim.hasRoom ? 'yes' : 'no'}</td>` : ''
    }</tr>`;
  })}</tbody>
</table></div>`;
}

function hoursText(l: devicehub.DeviceLimits__Output | null): string {
  if (!l?.sendingHoursStart) return 'any time';
  const across = l.sendingHoursEnd < l.sendingHoursStart ? ', across midnight' : '';
  return `${l.sendingHoursStart} to ${l.sendingHoursEnd} (${l.timeZone || 'UTC'}${across})`;
}

export interface PhonePage {
  csrf: string;
  device: devicehub.Device__Output;
  queued: number;
  /** What the phone's digests repaired (protocol 7). */
  repairs?: message.DeviceRepairs__Output;
  /** The limits form: the phone's, or what was typed when refused. */
  form: LimitsForm;
  errors?: LimitErrors;
  ok?: string;
  /** The time zones offered as suggestions. */
  zones: string[];
  /** The SIM health form as typed (else the phone's), and why it was refused. */
  health?: { form: Record<string, string>; error?: string };
  /** Its telemetry, log and settings' state (protocol 6); undefined when the hub could not say. */
  telemetry?: devicehub.DeviceHealth__Output;
}

/** One field of the limits form, with its error under it. */
function input(p: PhonePage, name: LimitField, label: string, attrs: SafeHtml): SafeHtml {
  const error = p.errors?.[name];
  return html`<div class="field"><label for="l-${name}">${label}</label>
<input id="l-${name}" name="${name}" value="${p.form[name]}" ${attrs} ${error ? html`aria-invalid="true" aria-describedby="l-${name}-error"` : ''}>
${error ? html`<p class="error" id="l-${name}-error" data-error="${name}">${error}</p>` : ''}</div>`;
}

const number = html`inputmode="numeric" pattern="[0-9]*" placeholder="0"`;
const hhmm = html`placeholder="HH:MM" pattern="([01][0-9]|2[0-3]):[0-5][0-9]" maxlength="5"`;

/** What reconciliation repaired for this phone, in words. */
function repairsText(r: message.DeviceRepairs__Output | undefined): string {
  const total = r ? r.reportApplied + r.sentCorrected + r.requeued : 0;
  if (!r || total === 0) return 'nothing: every report of this phone arrived';
  return `${total} message${total > 1 ? 's' : ''}: ${r.reportApplied} lost report${r.reportApplied === 1 ? '' : 's'} applied, ${r.sentCorrected} sent but shown queued, ${r.requeued} never on the phone and queued again`;
}

export function phoneView(p: PhonePage): SafeHtml {
  const d = p.device;
  const l = d.limits;
  const general = p.errors?.[''];
  return html`${notice('ok', p.ok)}${notice('error', p.errors ? (general ?? 'Some limits are not right: nothing was changed. See the fields below.') : undefined)}
<section class="card">
  <dl class="facts">
    <dt>Phone id</dt><dd><code>${d.deviceId}</code></dd>
    <dt>State</dt><dd><span class="state ${d.status}">${d.status}</span></dd>
    <dt>Last seen</dt><dd>${when(d.lastSeenAt)}</dd>
    <dt>Queued</dt><dd>${p.queued}</dd>
    <dt>Repaired from its reports</dt><dd data-repairs>${repairsText(p.repairs)}</dd>
    <dt>Sending now</dt><dd>${roomBadge(d)}</dd>
    <dt>Sending hours</dt><dd>${hoursText(l)}</dd>
    <dt>Pause between SMS</dt><dd>${l?.minIntervalMs || l?.maxIntervalMs ? `${l.minIntervalMs} to ${l.maxIntervalMs} ms` : 'the default (2 to 3 seconds)'}</dd>
  </dl>
</section>
${usageTable(d)}
${simsTable(d)}
${simHealthSection(d, p.csrf, p.health?.form ?? healthForm(d), p.health?.error)}
${phoneHealthView(d.deviceId, p.csrf, d.status === 'online', p.telemetry)}
<section class="card">
  <h2>Limits and sending hours</h2>
  <p>The hub hands this phone no SMS past a limit or outside its hours: its messages wait for room, or go to another phone of yours if they may (not pinned). Empty or 0: no limit.</p>
  <form method="post" action="/phones/${d.deviceId}/limits" class="limits" novalidate>${csrfField({ csrf: p.csrf })}
    <fieldset><legend>SMS at most</legend>
      ${input(p, 'per_minute', 'Per minute', number)}
      ${input(p, 'per_hour', 'Per hour', number)}
      ${input(p, 'per_day', 'Per 24 hours', number)}
    </fieldset>
    <fieldset><legend>Pause between two SMS, in milliseconds (both empty: the default, 2000 to 3000)</legend>
      ${input(p, 'min_interval_ms', 'At least', number)}
      ${input(p, 'max_interval_ms', 'At most', number)}
    </fieldset>
    <fieldset><legend>Sending hours (both empty: any time; an end before the start: across midnight)</legend>
      ${input(p, 'sending_hours_start', 'From', hhmm)}
      ${input(p, 'sending_hours_end', 'Until', hhmm)}
      ${input(p, 'time_zone', 'Time zone of the hours (empty: UTC)', html`list="time-zones" placeholder="Europe/Paris" maxlength="64" autocomplete="off"`)}
      <datalist id="time-zones">${p.zones.map((z) => html`<option value="${z}"></option>`)}</datalist>
    </fieldset>
    <button type="submit">Save the limits</button>
  </form>
</section>
<p><a href="/messages?device_id=${d.deviceId}">Its messages</a> · <a href="/phones">Back to the phones</a></p>`;
}
