// Protocol 6's server-owned settings frame and the bounds of a phone's `log` frame. Pure.
import { createHash } from 'node:crypto';
import type { DeviceLimits } from './limits';
import type { SimRule } from './sims';

/** What the server owns of a phone and pushes to it: its limits, hours and pace, and the client's SIM rule. */
export interface PhoneSettings {
  limits: DeviceLimits;
  simRule: SimRule;
}

/** A log frame keeps at most this many lines, each at most this long. */
export const MAX_LOG_LINES = 500;
export const MAX_LOG_LINE = 500;

/** The `settings` frame: its version is a digest of what it says, so the same settings are the same version. */
export function settingsFrame({ limits, simRule }: PhoneSettings): Record<string, unknown> & { version: string } {
  const body = {
    limits: {
      per_minute: limits.perMinute,
      per_hour: limits.perHour,
      per_day: limits.perDay,
      min_interval_ms: limits.minIntervalMs,
      max_interval_ms: limits.maxIntervalMs,
      sending_hours_start: limits.sendingHoursStart,
      sending_hours_end: limits.sendingHoursEnd,
      time_zone: limits.timeZone,
    },
    sim_rule: { rule: simRule.rule, default_sim: simRule.defaultSim },
  };
  const version = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);
  return { type: 'settings', version, ...body };
}

// A run of 5 or more digits (spaces, dots, dashes and brackets between them), optionally after
// `+`, that is not part of a word (an id such as msg_01J9... keeps its digits) nor a date
// (2026-11-29): a phone number (the agents' rule).
const NUMBER = /(?<![A-Za-z0-9_-])(?!\d{4}-\d\d-\d\d)\+?\d[\d ().-]{3,}\d(?![A-Za-z0-9_])/g;

/**
 * The lines of a `log` frame, bounded; numbers the phone left in them are masked again here (the
 * agents redact before sending; this is for an agent that did not).
 */
export function logLinesOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .slice(-MAX_LOG_LINES)
    .filter((line): line is string => typeof line === 'string')
    .map((line) => line.slice(0, MAX_LOG_LINE).replace(NUMBER, '[number]'));
}
