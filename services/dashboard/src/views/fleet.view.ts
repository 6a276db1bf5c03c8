import {
  DELAY_MAX,
  DELAY_MIN,
  SIM_MAX,
  TTL_MAX,
  TTL_MIN,
  type FleetField,
  type FleetForm,
  type FleetSettings,
} from '../use-cases/fleet.use-case';
import { humanDuration } from './duration';
import { html, type SafeHtml } from './html';

/** The fleet form as typed and refused: the values given back and the fields to mark. */
export interface FleetTyped {
  form: FleetForm;
  invalid: FleetField[];
}

const invalidAttr = (typed: FleetTyped | undefined, name: FleetField) =>
  typed?.invalid.includes(name) ? html`aria-invalid="true" aria-describedby="fleet-error"` : '';

/**
 * The Fleet card of the settings page: the default ttl and the failover delay, each with its
 * current value in words. `confirm` is the re-authentication field the page's forms share.
 */
export function fleetSection(csrf: SafeHtml, confirm: SafeHtml, current: FleetSettings, typed?: FleetTyped): SafeHtml {
  const ttl = typed ? typed.form.defaultTtl : current.defaultTtlSeconds ? String(current.defaultTtlSeconds) : '';
  const delay = typed ? typed.form.failoverDelay : String(current.failoverDelaySeconds);
  const simRule = typed ? typed.form.simRule : current.simRule;
  const defaultSim = typed ? typed.form.defaultSim : String(current.defaultSim);
  const ttlNow = current.defaultTtlSeconds
    ? humanDuration(current.defaultTtlSeconds)
    : 'none: messages wait for a phone as long as it takes';
  return html`<section class="card" id="fleet">
  <h2>Fleet</h2>
  <p>How your phones share the messages. A message sent without a phone named, or named with <code>"failover": true</code>, moves to another online phone of yours when its phone stays offline longer than the failover delay; a message pinned to a phone stays on it.</p>
  <form method="post" action="/settings/fleet">${csrf}
    <label for="fleet-ttl">Default time to live, in seconds (empty or 0: none; ${TTL_MIN} to ${TTL_MAX})</label>
    <input id="fleet-ttl" name="default_ttl" inputmode="numeric" pattern="[0-9]*" value="${ttl}" placeholder="none" ${invalidAttr(typed, 'defaultTtl')}>
    <p class="muted" data-fleet="ttl">Now: ${ttlNow}. A message no phone took within its time to live fails with <code>EXPIRED</code>. A send's own <code>ttl</code> wins. For example 3600 is 1 hour, 86400 is 1 day.</p>
    <label for="fleet-delay">Failover delay, in seconds (${DELAY_MIN} to ${DELAY_MAX}; empty: 60)</label>
    <input id="fleet-delay" name="failover_delay" inputmode="numeric" pattern="[0-9]*" required value="${delay}" ${invalidAttr(typed, 'failoverDelay')}>
    <p class="muted" data-fleet="delay">Now: ${humanDuration(current.failoverDelaySeconds)}.</p>
    <fieldset><legend>SIM of a phone with several, when a message names none</legend>
      <label><input type="radio" name="sim_rule" value="round_robin" ${simRule === 'round_robin' ? 'checked' : ''}> Round robin: each SIM in turn, skipping one whose limits are reached</label>
      <label><input type="radio" name="sim_rule" value="default" ${simRule === 'default' ? 'checked' : ''} ${invalidAttr(typed, 'simRule')}> Always the default SIM</label>
      <label for="fleet-default-sim">Default SIM (slot 1 to ${SIM_MAX}; a phone without it uses its first)</label>
      <input id="fleet-default-sim" name="default_sim" inputmode="numeric" pattern="[0-9]*" value="${defaultSim}" ${invalidAttr(typed, 'defaultSim')}>
      <p class="muted" data-fleet="sim">Now: ${current.simRule === 'default' ? `the default SIM, slot ${current.defaultSim}` : 'round robin'}. A send's own <code>sim</code> wins.</p>
    </fieldset>
    ${confirm}
    <button type="submit">Apply the fleet settings</button>
  </form>
</section>`;
}
