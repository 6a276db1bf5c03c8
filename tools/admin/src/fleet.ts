import { NO_DEVICE_LIMITS } from '@smsgw/platform';
import type { account, devicehub } from '@smsgw/proto';

/** A change of a device's limits: the fields given; the others keep their current value. */
export type LimitsChange = Partial<devicehub.DeviceLimits__Output>;

/** A change of a client's fleet settings: the fields given; the others keep their current value. */
export interface FleetChange {
  defaultTtlSeconds?: number;
  failoverDelaySeconds?: number;
  /** 'round_robin' or 'default'. */
  simRule?: string;
  /** 1 to 8. */
  defaultSim?: number;
}

/** A command line value that is not right (the command's usage is printed with it). */
export class OptionError extends Error {}

/** A whole number of at least 0 (`--per-minute 0`: no limit). */
export function wholeOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) throw new OptionError(`--${name} must be a whole number of at least 0`);
  return Number(value);
}

/** `--sim N`: the SIM slot, 1 to 8 (as a phone reports it); absent: 0, the phone's first SIM. */
export function simOption(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^[1-8]$/.test(value)) throw new OptionError('--sim must be a SIM slot from 1 to 8');
  return Number(value);
}

/** The SIM rules of a client (the account service's). */
export const SIM_RULES = ['round_robin', 'default'] as const;

/** `--sim-rule round_robin|default`; absent: undefined (kept). */
export function simRuleOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!(SIM_RULES as readonly string[]).includes(value)) throw new OptionError('--sim-rule must be round_robin or default');
  return value;
}

/** `--default-sim N`: the SIM slot of the "default" rule, 1 to 8; absent: undefined (kept). */
export function defaultSimOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-8]$/.test(value)) throw new OptionError('--default-sim must be a SIM slot from 1 to 8');
  return Number(value);
}

/** `--hours HH:MM-HH:MM` as its two ends; `any` or empty: any time (both empty). */
export function hoursOption(value: string | undefined): { sendingHoursStart: string; sendingHoursEnd: string } | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'any') return { sendingHoursStart: '', sendingHoursEnd: '' };
  const m = /^(\d{2}:\d{2})-(\d{2}:\d{2})$/.exec(value);
  if (!m) throw new OptionError('--hours must be HH:MM-HH:MM (for example 08:00-20:00, or 22:00-06:00 across midnight), or "any"');
  return { sendingHoursStart: m[1]!, sendingHoursEnd: m[2]! };
}

/** The device's limits with `change` applied: what SetDeviceLimits gets (it sets them all). */
export function mergeLimits(current: devicehub.DeviceLimits__Output | null, change: LimitsChange): devicehub.DeviceLimits__Output {
  const base: devicehub.DeviceLimits__Output = current ?? NO_DEVICE_LIMITS;
  const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  return { ...base, ...defined };
}

/** A device's limits, their use, whether it may send now and its SIMs (with each one's use), as the command prints them. */
export function deviceLimitsJson(d: devicehub.Device__Output) {
  const l = mergeLimits(d.limits, {});
  return {
    device_id: d.deviceId,
    limits: {
      per_minute: l.perMinute,
      per_hour: l.perHour,
      per_day: l.perDay,
      min_interval_ms: l.minIntervalMs,
      max_interval_ms: l.maxIntervalMs,
      sending_hours_start: l.sendingHoursStart,
      sending_hours_end: l.sendingHoursEnd,
      time_zone: l.timeZone,
    },
    usage: { last_minute: d.usage?.lastMinute ?? 0, last_hour: d.usage?.lastHour ?? 0, last_day: d.usage?.lastDay ?? 0 },
    has_room: d.hasRoom,
    sims: d.sims.map((s) => ({
      slot: s.slot,
      carrier: s.carrier || null,
      number: s.number || null,
      usage: { last_minute: s.usage?.lastMinute ?? 0, last_hour: s.usage?.lastHour ?? 0, last_day: s.usage?.lastDay ?? 0 },
      has_room: s.hasRoom,
    })),
  };
}

/** A client's fleet settings as the command prints them. */
export function fleetJson(c: account.Client__Output) {
  return {
    client_id: c.clientId,
    default_ttl_seconds: c.defaultTtlSeconds,
    failover_delay_seconds: c.failoverDelaySeconds,
    sim_rule: c.simRule,
    default_sim: c.defaultSim,
  };
}

/** A phone as set-sim-health and release-sim print it: its limits' view, its SIM health thresholds and each SIM's health. */
export function simHealthJson(d: devicehub.Device__Output) {
  const s = d.simHealthSettings;
  return {
    ...deviceLimitsJson(d),
    sim_health_settings: {
      consecutive_failures: s?.consecutiveFailures ?? 0,
      failure_ratio: s?.failureRatio ?? 0,
      window: s?.window ?? 0,
      min_sample: s?.minSample ?? 0,
      cool_down_seconds: s?.coolDownSeconds ?? 0,
    },
    sim_health: d.simHealth.map((h) => ({
      slot: h.slot,
      state: h.state,
      reason: h.reason || null,
      since: h.since || null,
      probe_after: h.probeAfter || null,
      recent: Object.fromEntries(h.recent.map((r) => [r.cause, r.count])),
    })),
  };
}
