// A phone's sending limits and hours, and whether they leave it room to send now: pure functions
// of `now` (ms since the epoch), so that tests drive them with a fake clock.
import { AppError, NO_DEVICE_LIMITS, type ErrorDetail } from '@smsgw/platform';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
/** The longest pause between two SMS a phone may ask for. */
export const MAX_INTERVAL_MS = HOUR_MS;
/** The highest count a limit may name (far above what a phone can send in a day). */
export const MAX_LIMIT = 1_000_000;

export interface DeviceLimits {
  /** SMS in any sliding minute, hour, 24 hours; 0: no limit. */
  perMinute: number;
  perHour: number;
  perDay: number;
  /** The pause between two SMS; 0 and 0: the hub's default. */
  minIntervalMs: number;
  maxIntervalMs: number;
  /** "HH:MM" each, or both empty (any time); the end before the start: across midnight. */
  sendingHoursStart: string;
  sendingHoursEnd: string;
  /** IANA time zone; empty: UTC. */
  timeZone: string;
}

export const NO_LIMITS: DeviceLimits = NO_DEVICE_LIMITS;

/** SMS the phone acknowledged in each sliding window. */
export interface Usage {
  lastMinute: number;
  lastHour: number;
  lastDay: number;
}

export type Room = { ok: true } | { ok: false; waitMs: number; reason: 'limit' | 'hours' };

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** The canonical name of an IANA time zone, or undefined when Intl does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * The limits as given, checked and normalized (strings trimmed, the time zone's canonical name).
 * VALIDATION_ERROR listing every impossible value, field by field.
 */
export function validateLimits(input: Partial<DeviceLimits>): DeviceLimits {
  const details: ErrorDetail[] = [];
  const fail = (field: string, code: string, message: string) => details.push({ field, code, message });
  const count = (field: string, value: number | undefined, max: number): number => {
    const n = value ?? 0;
    if (!Number.isInteger(n) || n < 0 || n > max) fail(field, 'OUT_OF_RANGE', `Doit être un entier entre 0 et ${max}.`);
    return n;
  };
  const limits: DeviceLimits = {
    perMinute: count('per_minute', input.perMinute, MAX_LIMIT),
    perHour: count('per_hour', input.perHour, MAX_LIMIT),
    perDay: count('per_day', input.perDay, MAX_LIMIT),
    minIntervalMs: count('min_interval_ms', input.minIntervalMs, MAX_INTERVAL_MS),
    maxIntervalMs: count('max_interval_ms', input.maxIntervalMs, MAX_INTERVAL_MS),
    sendingHoursStart: (input.sendingHoursStart ?? '').trim(),
    sendingHoursEnd: (input.sendingHoursEnd ?? '').trim(),
    timeZone: (input.timeZone ?? '').trim(),
  };
  const ordered = (small: keyof DeviceLimits, big: keyof DeviceLimits, field: string, message: string) => {
    const a = limits[small] as number;
    const b = limits[big] as number;
    if (a > 0 && b > 0 && a > b) fail(field, 'LIMITS_INCONSISTENT', message);
  };
  ordered('perMinute', 'perHour', 'per_minute', 'La limite par minute ne peut dépasser la limite par heure.');
  ordered('perHour', 'perDay', 'per_hour', 'La limite par heure ne peut dépasser la limite par jour.');
  ordered('perMinute', 'perDay', 'per_minute', 'La limite par minute ne peut dépasser la limite par jour.');
  if (limits.minIntervalMs > limits.maxIntervalMs) {
    fail('min_interval_ms', 'INTERVAL_INCONSISTENT', "L'intervalle minimal ne peut dépasser l'intervalle maximal.");
  }
  const { sendingHoursStart: start, sendingHoursEnd: end } = limits;
  if (start !== '' || end !== '') {
    if (!HHMM.test(start)) fail('sending_hours_start', 'INVALID_TIME', 'Heure de début attendue au format HH:MM.');
    if (!HHMM.test(end)) fail('sending_hours_end', 'INVALID_TIME', 'Heure de fin attendue au format HH:MM.');
    if (start === end && HHMM.test(start)) {
      fail('sending_hours_end', 'EMPTY_HOURS', "L'heure de fin doit différer de l'heure de début.");
    }
  }
  if (limits.timeZone !== '') {
    const canonical = canonicalTimeZone(limits.timeZone);
    if (canonical === undefined) fail('time_zone', 'INVALID_TIME_ZONE', 'Fuseau horaire IANA inconnu (par exemple Europe/Paris).');
    else limits.timeZone = canonical;
  }
  if (details.length > 0) {
    throw new AppError('VALIDATION_ERROR', { message: "Limites d'envoi invalides.", details });
  }
  return limits;
}

/** Whether any count limit is set (else no usage needs reading). */
export const hasCountLimits = (limits: DeviceLimits) => limits.perMinute > 0 || limits.perHour > 0 || limits.perDay > 0;

/** The largest window that has a limit: how far back `room` needs the phone's sends. */
export function longestLimitedWindowMs(limits: DeviceLimits): number {
  if (limits.perDay > 0) return DAY_MS;
  if (limits.perHour > 0) return HOUR_MS;
  return limits.perMinute > 0 ? MINUTE_MS : 0;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock at `now` in `timeZone` (empty: UTC), as ms since the epoch read as UTC. */
function wallClock(now: number, timeZone: string): number {
  const zone = timeZone || 'UTC';
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(now)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const ms = ((now % 1000) + 1000) % 1000;
  return Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second, ms);
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether the sending hours are open at `now` in the phone's time zone. */
export function hoursOpen(now: number, limits: DeviceLimits): boolean {
  const { sendingHoursStart: start, sendingHoursEnd: end } = limits;
  if (!start || !end) return true;
  const local = wallClock(now, limits.timeZone);
  const minute = Math.floor((((local % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
  const from = minutesOf(start);
  const to = minutesOf(end);
  return from < to ? minute >= from && minute < to : minute >= from || minute < to;
}

/**
 * Ms from `now` until the sending hours open (0 when open). The wall clock's next `start`, moved
 * by the change of UTC offset in between (DST); a `start` inside a DST gap (02:30 on the night
 * the clocks go forward) opens when the clocks jump past it.
 */
export function msUntilHoursOpen(now: number, limits: DeviceLimits): number {
  if (hoursOpen(now, limits)) return 0;
  const zone = limits.timeZone;
  const local = wallClock(now, zone);
  const sinceMidnight = ((local % DAY_MS) + DAY_MS) % DAY_MS;
  const naive = now + ((((minutesOf(limits.sendingHoursStart) * MINUTE_MS - sinceMidnight) % DAY_MS) + DAY_MS) % DAY_MS);
  const offsetAt = (t: number) => wallClock(t, zone) - t;
  const moved = naive + offsetAt(now) - offsetAt(naive);
  if (moved > now && hoursOpen(moved, limits)) return moved - now;
  // In a gap: the first open instant between the two, to the second.
  let [closed, open] = [Math.max(now, Math.min(moved, naive)), Math.max(moved, naive)];
  if (!hoursOpen(open, limits)) return Math.max(1000, naive - now);
  while (open - closed > 1000) {
    const middle = Math.floor((closed + open) / 2);
    if (hoursOpen(middle, limits)) open = middle;
    else closed = middle;
  }
  return Math.max(1, open - now);
}

/**
 * Whether the phone may take an SMS at `now`, from the times (ms, any order) of the SMS it
 * acknowledged in the last 24 hours; else how long until it may: the earliest moment every
 * full window has lost enough of its oldest SMS and the sending hours are open.
 */
export function room(now: number, limits: DeviceLimits, sentAt: readonly number[]): Room {
  const sorted = [...sentAt].sort((a, b) => a - b);
  let limitWait = 0;
  for (const [windowMs, limit] of [
    [MINUTE_MS, limits.perMinute],
    [HOUR_MS, limits.perHour],
    [DAY_MS, limits.perDay],
  ] as const) {
    if (limit <= 0) continue;
    const inWindow = sorted.filter((t) => t > now - windowMs);
    if (inWindow.length < limit) continue;
    // The SMS whose leaving brings the window under its limit (the ones before it leave first).
    limitWait = Math.max(limitWait, inWindow[inWindow.length - limit]! + windowMs - now);
  }
  if (limitWait > 0) return { ok: false, waitMs: limitWait, reason: 'limit' };
  const hoursWait = msUntilHoursOpen(now, limits);
  return hoursWait > 0 ? { ok: false, waitMs: hoursWait, reason: 'hours' } : { ok: true };
}

/** Whether the phone may send now, from its counts only (what a device listing shows). */
export function hasRoom(now: number, limits: DeviceLimits, usage: Usage): boolean {
  const under = (count: number, limit: number) => limit <= 0 || count < limit;
  return (
    under(usage.lastMinute, limits.perMinute) &&
    under(usage.lastHour, limits.perHour) &&
    under(usage.lastDay, limits.perDay) &&
    hoursOpen(now, limits)
  );
}
