import { AppError } from './errors';

// Periods of time as the API's filters give them (from_date, to_date): the history's range and
// the statistics' period, for every service that counts by created_at (message, otp).

const DAY_MS = 86_400_000;

// ISO 8601 / RFC 3339 as users write it: a date alone, or a date and time
// (seconds and fraction optional) with `Z`, an offset, or nothing (UTC).
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** A point in time given by the user, with how much of the calendar it covers. */
export interface TimeBound {
  /** The first instant it names. */
  start: Date;
  /** The first instant after it: the next day for a date alone, the next millisecond otherwise. */
  end: Date;
}

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Parses an ISO 8601 date or date-time (years 0001 to 9999); undefined when it is not one. */
export function parseTimeBound(text: string): TimeBound | undefined {
  const date = DATE_RE.exec(text);
  if (date) {
    const [year, month, day] = date.slice(1, 4).map(Number) as [number, number, number];
    if (year < 1 || !validDay(year, month, day)) return undefined;
    const start = new Date(`${date[0]}T00:00:00.000Z`);
    return { start, end: new Date(start.getTime() + DAY_MS) };
  }
  const m = DATE_TIME_RE.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1, 6).map(Number) as [number, number, number, number, number];
  const second = m[6] ?? '00';
  if (year < 1 || !validDay(year, month, day) || hour > 23 || minute > 59 || Number(second) > 59) return undefined;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  // Sub-millisecond digits are dropped: a bound covers its whole millisecond.
  const millis = (m[7] ?? '').slice(0, 3).padEnd(3, '0');
  const utc = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${second}.${millis}Z`);
  const start = new Date(utc - offsetMinutes * 60_000);
  return { start, end: new Date(start.getTime() + 1) };
}

function invalidDate(field: string, message?: string): AppError {
  return new AppError('INVALID_DATE', { ...(message ? { message } : {}), details: [{ field, code: 'INVALID_DATE' }] });
}

function bound(field: string, text: string): TimeBound | undefined {
  if (!text) return undefined;
  const parsed = parseTimeBound(text);
  if (!parsed) throw invalidDate(field);
  return parsed;
}

/** A half-open interval [from, until) of created_at; either side may be open. */
export interface CreatedRange {
  from?: Date;
  until?: Date;
}

const REVERSED = 'La date de début (from_date) doit précéder la date de fin (to_date).';

/**
 * The history filter: `from_date` inclusive from its first instant,
 * `to_date` inclusive to its last (the whole day for a date alone).
 */
export function historyRange(fromDate: string, toDate: string): CreatedRange {
  const from = bound('from_date', fromDate);
  const to = bound('to_date', toDate);
  if (from && to && from.start >= to.end) throw invalidDate('from_date', REVERSED);
  return { ...(from ? { from: from.start } : {}), ...(to ? { until: to.end } : {}) };
}

/** 'YYYY-MM-DD' of the UTC day holding `at`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The instants a statistics request counts, [from, until), and how: whole
 * UTC days from the per-day counters and rollups, the parts of a day at its
 * ends from the messages themselves.
 */
export interface StatsPeriod {
  from: Date;
  until: Date;
  /** The whole UTC days inside; null when there is none. */
  days: { first: string; last: string } | null;
  /** At most two parts of a day, at the ends. */
  partials: { from: Date; until: Date }[];
}

export const DEFAULT_STATS_DAYS = 30;
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');

const floorDay = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;
const ceilDay = (t: number) => Math.ceil(t / DAY_MS) * DAY_MS;

/**
 * The period of a statistics request, with the bounds of the history filter:
 * `from_date` from its first instant, `to_date` through its last (the whole
 * day for a date alone). Without `to_date` it ends with today (UTC); without
 * `from_date` it starts 30 UTC days before the day it ends in.
 *
 * The figures are exact, except for the part of a period older than the
 * retention (`retentionDays` before `now`): the retention keeps only daily
 * rollups of the messages it deletes, so an end of the period there is
 * widened to its whole UTC day, and `from` / `until` say so. Which end is
 * widened depends only on the clock and the setting, never on whether the
 * retention has run yet: that keeps the retention job unable to change any
 * figure.
 */
export function statsPeriod(fromDate: string, toDate: string, now: Date, retentionDays: number): StatsPeriod {
  const from = bound('from_date', fromDate);
  const to = bound('to_date', toDate);
  let until = to ? to.end.getTime() : floorDay(now.getTime()) + DAY_MS;
  let start = from ? from.start.getTime() : Math.max(floorDay(until - 1) - DEFAULT_STATS_DAYS * DAY_MS, EARLIEST);
  if (start >= until || (!to && start > now.getTime())) throw invalidDate('from_date', REVERSED);
  const exactSince = now.getTime() - retentionDays * DAY_MS;
  if (start < exactSince) start = floorDay(start);
  if (Math.max(start, floorDay(until)) < exactSince) until = ceilDay(until);
  const { days, partials } = splitByDay({ from: new Date(start), until: new Date(until) });
  return {
    from: new Date(start),
    until: new Date(until),
    days: days ? { first: days.first!, last: days.last! } : null,
    partials: partials.map((p) => ({ from: p.from!, until: p.until! })),
  };
}

/** Whole UTC days, either end open; `null` when no whole day is inside. */
export interface DaySpan {
  first?: string;
  last?: string;
}

/**
 * Cuts a created_at range into the whole UTC days it holds (counted from the
 * per-day counters) and at most two partial days at its ends (counted from
 * the messages themselves).
 */
export function splitByDay(range: CreatedRange): { days: DaySpan | null; partials: CreatedRange[] } {
  const a = range.from?.getTime();
  const b = range.until?.getTime();
  const firstWhole = a === undefined ? undefined : Math.ceil(a / DAY_MS) * DAY_MS;
  const wholeEnd = b === undefined ? undefined : Math.floor(b / DAY_MS) * DAY_MS;
  if (firstWhole !== undefined && wholeEnd !== undefined && firstWhole >= wholeEnd) {
    return { days: null, partials: [range] };
  }
  const days: DaySpan = {
    ...(firstWhole !== undefined ? { first: utcDay(new Date(firstWhole)) } : {}),
    ...(wholeEnd !== undefined ? { last: utcDay(new Date(wholeEnd - DAY_MS)) } : {}),
  };
  const partials: CreatedRange[] = [];
  if (a !== undefined && firstWhole! > a) partials.push({ from: range.from!, until: new Date(firstWhole!) });
  if (b !== undefined && b > wholeEnd!) partials.push({ from: new Date(wholeEnd!), until: range.until! });
  return { days, partials };
}
