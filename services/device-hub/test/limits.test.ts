import { AppError } from '@smsgw/platform';
import {
  HOUR_MS,
  hasRoom,
  hoursOpen,
  MINUTE_MS,
  msUntilHoursOpen,
  NO_LIMITS,
  room,
  validateLimits,
  type DeviceLimits,
} from '../src/domain/limits';

/** The limits' rules and the room a phone has, with a fake clock (every `now` is given). */

const limits = (over: Partial<DeviceLimits>): DeviceLimits => ({ ...NO_LIMITS, ...over });
const at = (iso: string) => Date.parse(iso);

function refusal(input: Partial<DeviceLimits>): AppError {
  try {
    validateLimits(input);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('the limits were accepted');
}

describe('validateLimits', () => {
  it('when nothing is set, then the limits are "none" (the hub default pause, any time, UTC)', () => {
    expect(validateLimits({})).toEqual(NO_LIMITS);
  });

  it('when the limits are coherent, then they are kept, trimmed, with the canonical time zone name', () => {
    expect(
      validateLimits({
        perMinute: 3,
        perHour: 3,
        perDay: 100,
        minIntervalMs: 5000,
        maxIntervalMs: 8000,
        sendingHoursStart: ' 22:00',
        sendingHoursEnd: '06:30 ',
        timeZone: 'europe/paris',
      }),
    ).toEqual({
      perMinute: 3,
      perHour: 3,
      perDay: 100,
      minIntervalMs: 5000,
      maxIntervalMs: 8000,
      sendingHoursStart: '22:00',
      sendingHoursEnd: '06:30',
      timeZone: 'Europe/Paris',
    });
  });

  it.each<[string, Partial<DeviceLimits>, string, string]>([
    ['a negative limit', { perHour: -1 }, 'per_hour', 'OUT_OF_RANGE'],
    ['a limit that is not an integer', { perDay: 1.5 }, 'per_day', 'OUT_OF_RANGE'],
    ['per minute above per hour', { perMinute: 10, perHour: 5 }, 'per_minute', 'LIMITS_INCONSISTENT'],
    ['per hour above per day', { perHour: 50, perDay: 20 }, 'per_hour', 'LIMITS_INCONSISTENT'],
    ['per minute above per day', { perMinute: 50, perDay: 20 }, 'per_minute', 'LIMITS_INCONSISTENT'],
    ['a min interval above the max', { minIntervalMs: 5000, maxIntervalMs: 1000 }, 'min_interval_ms', 'INTERVAL_INCONSISTENT'],
    ['a negative interval', { maxIntervalMs: -5 }, 'max_interval_ms', 'OUT_OF_RANGE'],
    ['an interval over an hour', { maxIntervalMs: HOUR_MS + 1 }, 'max_interval_ms', 'OUT_OF_RANGE'],
    ['hours not HH:MM', { sendingHoursStart: '8:00', sendingHoursEnd: '18:00' }, 'sending_hours_start', 'INVALID_TIME'],
    ['hours past 23:59', { sendingHoursStart: '08:00', sendingHoursEnd: '24:00' }, 'sending_hours_end', 'INVALID_TIME'],
    ['only a start', { sendingHoursStart: '08:00' }, 'sending_hours_end', 'INVALID_TIME'],
    ['only an end', { sendingHoursEnd: '08:00' }, 'sending_hours_start', 'INVALID_TIME'],
    ['an empty span', { sendingHoursStart: '08:00', sendingHoursEnd: '08:00' }, 'sending_hours_end', 'EMPTY_HOURS'],
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }, 'time_zone', 'INVALID_TIME_ZONE'],
  ])('when given %s, then VALIDATION_ERROR names the field', (_what, input, field, code) => {
    const err = refusal(input);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details).toEqual(expect.arrayContaining([expect.objectContaining({ field, code })]));
  });

  it('when per minute and per hour are set but per day is not, then per minute may equal per hour', () => {
    expect(validateLimits({ perMinute: 5, perHour: 5 }).perMinute).toBe(5);
  });
});

describe('room: the limit windows', () => {
  const now = at('2026-06-01T12:00:00Z');

  it('when no limit is set, then there is always room', () => {
    expect(
      room(
        now,
        NO_LIMITS,
        Array.from({ length: 500 }, (_, i) => now - i),
      ),
    ).toEqual({ ok: true });
  });

  it('when the minute holds fewer SMS than its limit, then there is room', () => {
    expect(room(now, limits({ perMinute: 3 }), [now - 10_000, now - 5000])).toEqual({ ok: true });
  });

  it('when the minute is full, then the wait ends as its oldest SMS leaves the window', () => {
    const sent = [now - 50_000, now - 20_000, now - 1000];
    expect(room(now, limits({ perMinute: 3 }), sent)).toEqual({ ok: false, waitMs: 10_000, reason: 'limit' });
    // An SMS older than the window does not count.
    expect(room(now, limits({ perMinute: 3 }), [now - MINUTE_MS, now - 20_000, now - 1000])).toEqual({ ok: true });
  });

  it('when a window holds more than its limit (lowered since), then the wait lasts until enough have left', () => {
    const sent = [now - 50_000, now - 40_000, now - 30_000, now - 1000];
    expect(room(now, limits({ perMinute: 2 }), sent)).toMatchObject({ ok: false, waitMs: 30_000 });
  });

  it('when the hour and the minute are both full, then the longest wait wins', () => {
    const sent = [now - 50 * MINUTE_MS, now - 30_000, now - 20_000];
    const r = room(now, limits({ perMinute: 2, perHour: 3 }), sent);
    expect(r).toEqual({ ok: false, waitMs: 10 * MINUTE_MS, reason: 'limit' });
  });

  it('when the 24 hours are full, then the wait ends a day after the oldest', () => {
    const sent = [now - 23 * HOUR_MS, now - HOUR_MS];
    expect(room(now, limits({ perDay: 2 }), sent)).toMatchObject({ ok: false, waitMs: HOUR_MS });
  });
});

describe('room: the sending hours', () => {
  it('when the hours are open in UTC, then there is room; when closed, then the wait ends at the start', () => {
    const office = limits({ sendingHoursStart: '08:00', sendingHoursEnd: '18:00' });
    expect(room(at('2026-06-01T08:00:00Z'), office, [])).toEqual({ ok: true });
    expect(room(at('2026-06-01T17:59:59Z'), office, [])).toEqual({ ok: true });
    expect(room(at('2026-06-01T18:00:00Z'), office, [])).toEqual({ ok: false, waitMs: 14 * HOUR_MS, reason: 'hours' });
    expect(room(at('2026-06-01T07:30:00Z'), office, [])).toEqual({ ok: false, waitMs: 30 * MINUTE_MS, reason: 'hours' });
  });

  it('when the hours cross midnight, then they are open late and early and closed in between', () => {
    const night = limits({ sendingHoursStart: '22:00', sendingHoursEnd: '06:00' });
    expect(hoursOpen(at('2026-06-01T23:00:00Z'), night)).toBe(true);
    expect(hoursOpen(at('2026-06-01T05:59:00Z'), night)).toBe(true);
    expect(hoursOpen(at('2026-06-01T06:00:00Z'), night)).toBe(false);
    expect(msUntilHoursOpen(at('2026-06-01T12:00:00Z'), night)).toBe(10 * HOUR_MS);
  });

  it("when the phone's time zone is Paris in summer (UTC+2), then its hours are read on its own clock", () => {
    const paris = limits({ sendingHoursStart: '09:00', sendingHoursEnd: '17:00', timeZone: 'Europe/Paris' });
    // 07:30 UTC is 09:30 in Paris: open; 06:30 UTC is 08:30: opens in 30 minutes.
    expect(hoursOpen(at('2026-07-01T07:30:00Z'), paris)).toBe(true);
    expect(msUntilHoursOpen(at('2026-07-01T06:30:00Z'), paris)).toBe(30 * MINUTE_MS);
  });

  it('when the clocks go forward (Paris, 29 March 2026) before the opening, then the wait is an hour shorter than the wall clock says', () => {
    const paris = limits({ sendingHoursStart: '08:00', sendingHoursEnd: '20:00', timeZone: 'Europe/Paris' });
    // 22:00 CET on the 28th (21:00 UTC); 08:00 CEST on the 29th is 06:00 UTC: 9 hours.
    const now = at('2026-03-28T21:00:00Z');
    expect(msUntilHoursOpen(now, paris)).toBe(9 * HOUR_MS);
    expect(hoursOpen(now + 9 * HOUR_MS, paris)).toBe(true);
    expect(hoursOpen(now + 9 * HOUR_MS - 1000, paris)).toBe(false);
  });

  it('when the clocks go back (Paris, 25 October 2026) before the opening, then the wait is an hour longer', () => {
    const paris = limits({ sendingHoursStart: '08:00', sendingHoursEnd: '20:00', timeZone: 'Europe/Paris' });
    // 22:00 CEST on the 24th (20:00 UTC); 08:00 CET on the 25th is 07:00 UTC: 11 hours.
    expect(msUntilHoursOpen(at('2026-10-24T20:00:00Z'), paris)).toBe(11 * HOUR_MS);
  });

  it('when the opening falls in the hour the clocks skip, then the hours open as the clocks jump (03:00 CEST)', () => {
    const paris = limits({ sendingHoursStart: '02:30', sendingHoursEnd: '06:00', timeZone: 'Europe/Paris' });
    const now = at('2026-03-28T21:00:00Z');
    // 01:00 UTC on the 29th: 02:00 CET becomes 03:00 CEST.
    expect(now + msUntilHoursOpen(now, paris)).toBe(at('2026-03-29T01:00:00Z'));
  });

  it('when both a limit and the hours hold the phone, then the limit wait comes first and the hours after it', () => {
    const both = limits({ perMinute: 1, sendingHoursStart: '08:00', sendingHoursEnd: '18:00' });
    const now = at('2026-06-01T17:59:30Z');
    expect(room(now, both, [now - 10_000])).toEqual({ ok: false, waitMs: 50_000, reason: 'limit' });
    const later = now + 50_000;
    expect(room(later, both, [now - 10_000])).toMatchObject({ ok: false, reason: 'hours' });
  });
});

describe('hasRoom (from the counts of a listing)', () => {
  it('when a count reaches its limit or the hours are closed, then the phone has no room', () => {
    const now = at('2026-06-01T12:00:00Z');
    const usage = { lastMinute: 2, lastHour: 10, lastDay: 40 };
    expect(hasRoom(now, limits({ perMinute: 3, perHour: 20, perDay: 100 }), usage)).toBe(true);
    expect(hasRoom(now, limits({ perHour: 10 }), usage)).toBe(false);
    expect(hasRoom(now, limits({ sendingHoursStart: '13:00', sendingHoursEnd: '14:00' }), usage)).toBe(false);
  });
});
