import { AppError, historyRange, parseTimeBound, splitByDay, statsPeriod } from '@smsgw/platform';
import { containsPattern, pageOf, totalPages } from '../src/domain/history';
import { deliveryRate, summarize } from '../src/domain/stats';

const iso = (d: Date | undefined) => d?.toISOString();

describe('history and statistics rules', () => {
  describe('when a user writes a date', () => {
    it.each([
      ['2025-03-01', '2025-03-01T00:00:00.000Z', '2025-03-02T00:00:00.000Z'],
      ['2024-02-29', '2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
      ['2025-03-01T10:20:30Z', '2025-03-01T10:20:30.000Z', '2025-03-01T10:20:30.001Z'],
      ['2025-03-01T10:20:30.123456Z', '2025-03-01T10:20:30.123Z', '2025-03-01T10:20:30.124Z'],
      ['2025-03-01T10:20:30.5+02:00', '2025-03-01T08:20:30.500Z', '2025-03-01T08:20:30.501Z'],
      ['2025-03-01T01:00-0330', '2025-03-01T04:30:00.000Z', '2025-03-01T04:30:00.001Z'],
      ['2025-03-01 10:20:30', '2025-03-01T10:20:30.000Z', '2025-03-01T10:20:30.001Z'],
      ['0001-01-01', '0001-01-01T00:00:00.000Z', '0001-01-02T00:00:00.000Z'],
    ])('then %s starts at %s and ends before %s', (text, start, end) => {
      const bound = parseTimeBound(text);
      expect(iso(bound?.start)).toBe(start);
      expect(iso(bound?.end)).toBe(end);
    });

    it.each([
      '',
      'now',
      '2025-3-1',
      '2023-02-29',
      '2025-04-31',
      '2025-03-01T24:00:00Z',
      '2025-03-01T10:60Z',
      '2025-03-01T10:00:00+25:00',
      '0000-01-01',
      '1740000000',
    ])('then %j is not a date', (text) => {
      expect(parseTimeBound(text)).toBeUndefined();
    });
  });

  describe('when the history is filtered by dates', () => {
    it('then to_date includes its whole day or its whole millisecond, and a reversed range is INVALID_DATE', () => {
      expect(historyRange('2025-03-01', '2025-03-01')).toEqual({
        from: new Date('2025-03-01T00:00:00Z'),
        until: new Date('2025-03-02T00:00:00Z'),
      });
      expect(historyRange('', '2025-03-01T10:00:00Z')).toEqual({ until: new Date('2025-03-01T10:00:00.001Z') });
      expect(historyRange('2025-03-01T10:00:00Z', '2025-03-01T10:00:00Z').from).toEqual(new Date('2025-03-01T10:00:00Z'));
      expect(() => historyRange('2025-03-02', '2025-03-01')).toThrow(AppError);
    });
  });

  describe('when a statistics period is asked', () => {
    const now = new Date('2025-06-15T13:45:00Z');

    it('then by default it is the 30 UTC days before today, through today', () => {
      expect(statsPeriod('', '', now, 90)).toEqual({
        from: new Date('2025-05-16T00:00:00Z'),
        until: new Date('2025-06-16T00:00:00Z'),
        days: { first: '2025-05-16', last: '2025-06-15' },
        partials: [],
      });
    });

    it('then bounds given to the second are kept, their parts of a day counted from the messages', () => {
      expect(statsPeriod('2025-06-01T23:00:00-02:00', '2025-06-03T16:00:00Z', now, 90)).toEqual({
        from: new Date('2025-06-02T01:00:00Z'),
        until: new Date('2025-06-03T16:00:00.001Z'),
        days: null,
        // No whole day between them: one range, counted by day of created_at.
        partials: [{ from: new Date('2025-06-02T01:00:00Z'), until: new Date('2025-06-03T16:00:00.001Z') }],
      });
      expect(statsPeriod('2025-06-10T14:00:00Z', '2025-06-10T16:00:00Z', now, 90)).toMatchObject({
        days: null,
        partials: [{ from: new Date('2025-06-10T14:00:00Z'), until: new Date('2025-06-10T16:00:00.001Z') }],
      });
      expect(statsPeriod('2025-06-01', '2025-06-01', now, 90)).toEqual({
        from: new Date('2025-06-01T00:00:00Z'),
        until: new Date('2025-06-02T00:00:00Z'),
        days: { first: '2025-06-01', last: '2025-06-01' },
        partials: [],
      });
    });

    it('then an end older than the retention is widened to its whole UTC day, and only that end', () => {
      // Retention of 10 days: messages before 2025-06-05T13:45Z may be rollups already.
      expect(statsPeriod('2025-06-01T10:00:00Z', '2025-06-10T16:00:00Z', now, 10)).toMatchObject({
        from: new Date('2025-06-01T00:00:00Z'),
        until: new Date('2025-06-10T16:00:00.001Z'),
        days: { first: '2025-06-01', last: '2025-06-09' },
      });
      expect(statsPeriod('2025-06-05T13:00:00Z', '2025-06-05T15:00:00Z', now, 10)).toMatchObject({
        from: new Date('2025-06-05T00:00:00Z'),
        until: new Date('2025-06-06T00:00:00Z'),
        partials: [],
      });
      // From after the retention's edge, even on the day it cuts: exact.
      expect(statsPeriod('2025-06-05T14:00:00Z', '2025-06-05T15:00:00Z', now, 10)).toMatchObject({
        from: new Date('2025-06-05T14:00:00Z'),
        partials: [{ from: new Date('2025-06-05T14:00:00Z'), until: new Date('2025-06-05T15:00:00.001Z') }],
      });
    });

    it('then a reversed period, or one starting after now without to_date, is INVALID_DATE', () => {
      expect(() => statsPeriod('2025-06-02', '2025-06-01', now, 90)).toThrow(AppError);
      expect(() => statsPeriod('2025-06-15T14:00:00Z', '', now, 90)).toThrow(AppError);
      expect(statsPeriod('2025-06-15T13:00:00Z', '', now, 90).until).toEqual(new Date('2025-06-16T00:00:00Z'));
    });
  });

  describe('when pages and searches are read', () => {
    it('then page and limit outside their ranges are INVALID_PAGINATION naming each field', () => {
      expect(pageOf(3, 20)).toEqual({ page: 3, limit: 20, offset: 40 });
      expect(() => pageOf(0, 101)).toThrow(
        expect.objectContaining({
          code: 'INVALID_PAGINATION',
          details: [
            { field: 'page', code: 'INVALID_PAGINATION' },
            { field: 'limit', code: 'INVALID_PAGINATION' },
          ],
        }),
      );
      expect(totalPages(0, 50)).toBe(0);
      expect(totalPages(50, 50)).toBe(1);
      expect(totalPages(51, 50)).toBe(2);
    });

    it('then the LIKE wildcards and the escape character of a search are escaped', () => {
      expect(containsPattern('50%_off\\now')).toBe('%50\\%\\_off\\\\now%');
    });
  });

  describe('when figures are summed', () => {
    it('then the delivery rate has two decimals and is 0 without messages', () => {
      expect(deliveryRate(2, 3)).toBe(66.67);
      expect(deliveryRate(1, 8)).toBe(12.5);
      expect(deliveryRate(1, 3)).toBe(33.33);
      expect(deliveryRate(0, 0)).toBe(0);
      expect(deliveryRate(7, 7)).toBe(100);
    });

    it('then cancelled messages are left out of sent, pending is queued plus sent, and received SMS are summed apart', () => {
      expect(
        summarize([
          { day: '2025-06-01', queued: 1, sent: 2, delivered: 3, failed: 4, cancelled: 5, received: 2 },
          { day: '2025-06-02', queued: 0, sent: 0, delivered: 0, failed: 0, cancelled: 1, received: 3 },
        ]),
      ).toEqual({
        totalSent: 10,
        delivered: 3,
        failed: 4,
        pending: 3,
        deliveryRate: 30,
        received: 5,
        byDay: [
          { date: '2025-06-01', sent: 10, delivered: 3, failed: 4, received: 2 },
          { date: '2025-06-02', sent: 0, delivered: 0, failed: 0, received: 3 },
        ],
      });
    });
  });
});

describe('cutting a date range into whole days', () => {
  const d = (s: string) => new Date(s);

  it('when the range is open, then every day is whole', () => {
    expect(splitByDay({})).toEqual({ days: {}, partials: [] });
  });

  it('when the ends fall inside days, then the whole days lie between and the ends are partial', () => {
    expect(splitByDay({ from: d('2025-03-01T10:00:00Z'), until: d('2025-03-05T06:00:00Z') })).toEqual({
      days: { first: '2025-03-02', last: '2025-03-04' },
      partials: [
        { from: d('2025-03-01T10:00:00Z'), until: d('2025-03-02T00:00:00Z') },
        { from: d('2025-03-05T00:00:00Z'), until: d('2025-03-05T06:00:00Z') },
      ],
    });
  });

  it('when the ends are midnights, then nothing is partial', () => {
    expect(splitByDay({ from: d('2025-03-01T00:00:00Z'), until: d('2025-03-03T00:00:00Z') })).toEqual({
      days: { first: '2025-03-01', last: '2025-03-02' },
      partials: [],
    });
    expect(splitByDay({ until: d('2025-03-03T00:00:00Z') })).toEqual({ days: { last: '2025-03-02' }, partials: [] });
  });

  it('when no whole day fits, then the range is one partial piece', () => {
    const range = { from: d('2025-03-01T22:00:00Z'), until: d('2025-03-02T03:00:00Z') };
    expect(splitByDay(range)).toEqual({ days: null, partials: [range] });
  });
});
