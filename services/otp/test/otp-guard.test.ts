import { AppError } from '@smsgw/platform';
import { destinationOf } from '../src/domain/otp-destination';
import {
  checkGuardSettings,
  conversionRate,
  DEFAULT_GUARD,
  holdToMake,
  prefixOf,
  settingsInput,
  trips,
  type GuardSettings,
} from '../src/domain/otp-guard';
import { otpStats } from '../src/domain/otp-stats';

const settings = (change: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_GUARD, ...change });

describe("the pumping guard's rules", () => {
  it('when a number is cut to its prefix, then its last 4 digits go: a block of 10,000 numbers', () => {
    expect(prefixOf('+33612345678')).toBe('+3361234');
    expect(prefixOf('+12125550100')).toBe('+1212555');
    expect(destinationOf('+33612345678')).toEqual({ country: 'FR', prefix: '+3361234', callingCode: '+33' });
    expect(destinationOf('+32470123456')).toMatchObject({ country: 'BE', callingCode: '+32' });
  });

  it('when a prefix asked for fewer codes than its threshold, then it never trips, however few were verified', () => {
    expect(trips({ requests: 19, verified: 0 }, { minRequests: 20, minConversion: 20 })).toBe(false);
    expect(trips({ requests: 20, verified: 0 }, { minRequests: 20, minConversion: 20 })).toBe(true);
  });

  it('when enough codes were asked, then it trips only under the conversion threshold (strictly)', () => {
    const threshold = { minRequests: 20, minConversion: 20 };
    expect(trips({ requests: 20, verified: 3 }, threshold)).toBe(true);
    // 4 of 20 is exactly 20 %: not under it.
    expect(trips({ requests: 20, verified: 4 }, threshold)).toBe(false);
    expect(trips({ requests: 100, verified: 90 }, threshold)).toBe(false);
    // A 0 % threshold never holds anything.
    expect(trips({ requests: 1000, verified: 0 }, { minRequests: 20, minConversion: 0 })).toBe(false);
  });

  it('when both the prefix and its country trip, then the prefix is held (the narrowest); a country alone is held when only it trips', () => {
    const counts = (prefix: [number, number], country: [number, number]) => ({
      prefix: { requests: prefix[0], verified: prefix[1] },
      country: { requests: country[0], verified: country[1] },
    });
    expect(holdToMake(counts([25, 0], [300, 0]), settings())).toBe('prefix');
    expect(holdToMake(counts([5, 0], [300, 10]), settings())).toBe('country');
    expect(holdToMake(counts([5, 0], [300, 30]), settings())).toBeUndefined();
    expect(holdToMake(counts([25, 0], [300, 0]), settings({ enabled: false }))).toBeUndefined();
  });

  it('when thresholds are changed, then the guard follows them', () => {
    const strict = settings({ prefix: { minRequests: 5, minConversion: 50 } });
    expect(holdToMake({ prefix: { requests: 5, verified: 2 }, country: { requests: 5, verified: 2 } }, strict)).toBe('prefix');
    expect(holdToMake({ prefix: { requests: 4, verified: 0 }, country: { requests: 4, verified: 0 } }, strict)).toBeUndefined();
  });

  it('when settings are checked, then values in their bounds pass and each one out of bounds is named', () => {
    const input = settingsInput(DEFAULT_GUARD);
    expect(checkGuardSettings(input)).toEqual(DEFAULT_GUARD);
    let err: unknown;
    try {
      checkGuardSettings({ ...input, window_seconds: 10, prefix_min_conversion: 101, end_user_limit: 1.5 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    expect((err as AppError).details?.map((d) => d.field)).toEqual(['window_seconds', 'prefix_min_conversion', 'end_user_limit']);
    expect(() => checkGuardSettings({ ...input, country_min_requests: 0 })).toThrow(
      /country_min_requests doit être un nombre entier entre 3/,
    );
  });

  it('when a conversion rate is computed, then it is a percentage with two decimals, 0 when nothing was sent', () => {
    expect(conversionRate(1, 3)).toBe(33.33);
    expect(conversionRate(2, 3)).toBe(66.67);
    expect(conversionRate(0, 0)).toBe(0);
  });

  it('when counts of days and countries are summed, then totals, days (oldest first) and countries (most codes first) follow', () => {
    const stats = otpStats([
      { day: '2025-03-02', country: 'FR', sent: 3, verified: 2, expired: 1, failed_attempts: 2 },
      { day: '2025-03-01', country: 'BE', sent: 1, verified: 0, expired: 1, failed_attempts: 0 },
      { day: '2025-03-01', country: 'FR', sent: 2, verified: 1, expired: 0, failed_attempts: 1 },
    ]);
    expect(stats).toEqual({
      sent: 6,
      verified: 3,
      expired: 2,
      failedAttempts: 3,
      conversionRate: 50,
      byDay: [
        { date: '2025-03-01', sent: 3, verified: 1 },
        { date: '2025-03-02', sent: 3, verified: 2 },
      ],
      byCountry: [
        { country: 'FR', sent: 5, verified: 3 },
        { country: 'BE', sent: 1, verified: 0 },
      ],
    });
  });
});
