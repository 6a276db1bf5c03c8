// SIM health (issue 38): each SIM's recent results by cause, the thresholds that quarantine it,
// the probe after its cool-down, and its release. Pure: the clock is given, nothing is stored.
import type { AgentReport } from '@smsgw/platform';

/**
 * What one SMS did on a SIM. The SIM's faults are what the phone says before or instead of the
 * network: a generic failure, Android's SMS limit, no service, the radio off, no credit. A failure
 * that is the recipient's (invalid number, blacklisted, expired, ...) says nothing of the SIM.
 */
export const SIM_RESULTS = [
  'sent',
  'generic_failure',
  'limit_exceeded',
  'no_service',
  'radio_off',
  'no_credit',
  'recipient_failure',
] as const;
export type SimResult = (typeof SIM_RESULTS)[number];

const FAULTS: readonly SimResult[] = ['generic_failure', 'limit_exceeded', 'no_service', 'radio_off', 'no_credit'];
export const isFault = (result: SimResult): boolean => FAULTS.includes(result);

/** What quarantined a SIM. */
export type QuarantineReason = 'consecutive_failures' | 'failure_ratio';

/** The owner's thresholds for a phone (every SIM of it); 0 turns a rule off. */
export interface SimHealthSettings {
  /** Faults in a row that quarantine the SIM. */
  consecutiveFailures: number;
  /** Percentage of faults among the last `window` results (of at least `minSample`) that quarantines it. */
  failureRatio: number;
  window: number;
  minSample: number;
  /** How long a quarantine lasts before one probe message is tried. */
  coolDownSeconds: number;
}

export const DEFAULT_SIM_HEALTH: SimHealthSettings = Object.freeze({
  consecutiveFailures: 5,
  failureRatio: 50,
  window: 20,
  minSample: 10,
  coolDownSeconds: 900,
});

/** The bounds of each setting, inclusive. */
export const SIM_HEALTH_BOUNDS: Readonly<Record<keyof SimHealthSettings, [number, number]>> = Object.freeze({
  consecutiveFailures: [0, 100],
  failureRatio: [0, 100],
  window: [1, 100],
  minSample: [1, 100],
  coolDownSeconds: [1, 7 * 86_400],
});

/** A probe handed out that says nothing after this long is tried again. */
export const PROBE_TIMEOUT_MS = 10 * 60_000;

export type SimHealthStateName = 'healthy' | 'quarantined' | 'probing';

/** One SIM's health. Times in ms since the epoch. */
export interface SimHealth {
  slot: number;
  state: SimHealthStateName;
  /** Why it is quarantined (empty when healthy). */
  reason: QuarantineReason | '';
  /** When it was quarantined (or its probe handed out, while probing). */
  since?: number;
  /** When its quarantine may be probed. */
  probeAfter?: number;
  /** The last results, oldest first, at most the window's. */
  recent: SimResult[];
}

export type HealthChange = 'quarantined' | 'released' | 'extended';

export const healthySim = (slot: number): SimHealth => ({ slot, state: 'healthy', reason: '', recent: [] });

/** The settings as stored on a device (jsonb, any key may be missing or wrong): each one read, else its default. */
export function simHealthSettingsOf(value: unknown): SimHealthSettings {
  const stored = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const out = { ...DEFAULT_SIM_HEALTH };
  for (const key of Object.keys(SIM_HEALTH_BOUNDS) as (keyof SimHealthSettings)[]) {
    const v = stored[key];
    const [min, max] = SIM_HEALTH_BOUNDS[key];
    if (Number.isInteger(v) && (v as number) >= min && (v as number) <= max) out[key] = v as number;
  }
  return out;
}

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Whether a phone has thresholds of its own (stored non-empty), rather than following its account's. */
export const hasOwnSimHealth = (phone: unknown): boolean => Object.keys(asObject(phone)).length > 0;

/**
 * The thresholds a phone follows: its own when it has them, else its account's, each missing or
 * wrong key its default.
 */
export function effectiveSimHealth(phone: unknown, account: unknown): SimHealthSettings {
  return simHealthSettingsOf(hasOwnSimHealth(phone) ? phone : account);
}

/** The settings' fields that are out of bounds (empty: valid); `minSample` may not exceed `window`. */
export function invalidSimHealthFields(settings: SimHealthSettings): (keyof SimHealthSettings)[] {
  const bad = (Object.keys(SIM_HEALTH_BOUNDS) as (keyof SimHealthSettings)[]).filter((key) => {
    const [min, max] = SIM_HEALTH_BOUNDS[key];
    return !Number.isInteger(settings[key]) || settings[key] < min || settings[key] > max;
  });
  if (!bad.includes('minSample') && !bad.includes('window') && settings.minSample > settings.window) bad.push('minSample');
  return bad;
}

/**
 * What a report says of its SIM: `sent` for a sent SMS; for a failure, its cause (the phone's
 * error code, and for `DEVICE_ERROR` and `OUT_OF_NETWORK` the words of its message: the Android
 * app and the simulator name Android's limit and the radio); undefined for what says nothing
 * (`delivered`, which follows `sent`).
 */
export function resultOf(report: Pick<AgentReport, 'status' | 'error'>): SimResult | undefined {
  if (report.status === 'sent') return 'sent';
  if (report.status !== 'failed') return undefined;
  const code = report.error?.code;
  const message = (report.error?.message ?? '').toLowerCase();
  if (code === 'DEVICE_ERROR') return message.includes('limit') ? 'limit_exceeded' : 'generic_failure';
  if (code === 'OUT_OF_NETWORK') return message.includes('radio') ? 'radio_off' : 'no_service';
  if (code === 'INSUFFICIENT_CREDIT') return 'no_credit';
  return 'recipient_failure';
}

/** The recent results counted by cause (only the causes seen). */
export function countsByCause(recent: readonly SimResult[]): Partial<Record<SimResult, number>> {
  const out: Partial<Record<SimResult, number>> = {};
  for (const r of recent) out[r] = (out[r] ?? 0) + 1;
  return out;
}

/** The faults at the end of `recent` (recipient failures neither count nor break the run). */
function faultsInARow(recent: readonly SimResult[]): number {
  let n = 0;
  for (let i = recent.length - 1; i >= 0; i--) {
    const r = recent[i]!;
    if (r === 'recipient_failure') continue;
    if (!isFault(r)) break;
    n++;
  }
  return n;
}

/** The threshold the recent results cross, if any. */
export function crossedThreshold(recent: readonly SimResult[], settings: SimHealthSettings): QuarantineReason | undefined {
  if (settings.consecutiveFailures > 0 && faultsInARow(recent) >= settings.consecutiveFailures) return 'consecutive_failures';
  if (settings.failureRatio > 0) {
    const sample = recent.filter((r) => r !== 'recipient_failure');
    const faults = sample.filter(isFault).length;
    if (sample.length >= settings.minSample && faults * 100 >= settings.failureRatio * sample.length) return 'failure_ratio';
  }
  return undefined;
}

const quarantine = (health: SimHealth, reason: QuarantineReason, settings: SimHealthSettings, now: number): SimHealth => ({
  ...health,
  state: 'quarantined',
  reason,
  since: now,
  probeAfter: now + settings.coolDownSeconds * 1000,
});

/**
 * A SIM's health after one more result. Healthy: the result joins the window, and a threshold
 * crossed quarantines it. Quarantined: results of SMS handed before are kept, nothing changes.
 * Probing: the probe's result decides: sent releases it (its window starts again), a fault
 * quarantines it for another cool-down, a recipient's failure says nothing (another probe goes).
 */
export function recordResult(
  health: SimHealth,
  result: SimResult,
  settings: SimHealthSettings,
  now: number,
): { health: SimHealth; change?: HealthChange } {
  const recent = [...health.recent, result].slice(-settings.window);
  if (health.state === 'probing') {
    if (result === 'sent') return { health: { slot: health.slot, state: 'healthy', reason: '', recent: ['sent'] }, change: 'released' };
    if (isFault(result))
      return { health: { ...quarantine(health, health.reason || 'consecutive_failures', settings, now), recent }, change: 'extended' };
    return { health: { ...health, state: 'quarantined', probeAfter: now, recent } };
  }
  if (health.state === 'quarantined') return { health: { ...health, recent } };
  const reason = crossedThreshold(recent, settings);
  if (!reason) return { health: { ...health, recent } };
  return { health: { ...quarantine(health, reason, settings, now), recent }, change: 'quarantined' };
}

/** Whether two windows hold the same results in the same order (a full window of one cause stays so). */
export const sameResults = (a: readonly SimResult[], b: readonly SimResult[]): boolean =>
  a.length === b.length && a.every((r, i) => r === b[i]);

/** Whether no SMS may go through the SIM now: quarantined before its probe is due, or its probe out (and not lost). */
export function blocked(health: SimHealth, now: number): boolean {
  if (health.state === 'healthy') return false;
  if (health.state === 'probing') return now - (health.since ?? 0) < PROBE_TIMEOUT_MS;
  return (health.probeAfter ?? 0) > now;
}

/** Whether the next SMS through the SIM is its probe (quarantined past its cool-down, or a probe lost). */
export const probeDue = (health: SimHealth, now: number): boolean => health.state !== 'healthy' && !blocked(health, now);

/** The SIM with its probe handed out now. */
export const probing = (health: SimHealth, now: number): SimHealth => ({ ...health, state: 'probing', since: now });

/** The SIM released by hand: healthy, its window empty. */
export const releasedByHand = (slot: number): SimHealth => healthySim(slot);

/** Whether a phone can send through none of its SIMs now (every one it has quarantined): the automatic choice passes it by. */
export function everySimBlocked(health: readonly SimHealth[], slots: readonly number[], now: number): boolean {
  const known = slots.length >= 2 ? slots : [slots[0] ?? 1];
  return known.every((slot) => {
    const sim = health.find((h) => h.slot === slot);
    return sim !== undefined && blocked(sim, now);
  });
}
