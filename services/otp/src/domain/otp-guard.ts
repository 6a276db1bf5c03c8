import { AppError, type ErrorDetail } from '@smsgw/platform';

// The pumping guard's rules (issue 39), without I/O: what a destination prefix is, the settings
// and their bounds, and when a prefix or a country asked for many codes and verified few.

/** A prefix is the number without its last digits: a block of 10,000 numbers, the ranges pumping uses. */
export const PREFIX_HIDDEN_DIGITS = 4;

/** The prefix of an E.164 number: `+33612345678` -> `+3361234`. */
export function prefixOf(e164: string): string {
  return e164.slice(0, Math.max(2, e164.length - PREFIX_HIDDEN_DIGITS));
}

/** Codes asked for and verified in a window. */
export interface WindowCounts {
  requests: number;
  verified: number;
}

/** One scope's threshold: at least `minRequests` codes, and fewer than `minConversion` percent verified. */
export interface Threshold {
  minRequests: number;
  minConversion: number;
}

export interface GuardSettings {
  enabled: boolean;
  windowSeconds: number;
  prefix: Threshold;
  country: Threshold;
  endUser: { limit: number; windowSeconds: number };
}

export type HoldScope = 'prefix' | 'country';

/** The bounds of each setting, in the order the dashboard's form shows them. */
export const GUARD_BOUNDS = {
  window_seconds: { min: 300, max: 86_400 },
  prefix_min_requests: { min: 3, max: 100_000 },
  prefix_min_conversion: { min: 0, max: 100 },
  country_min_requests: { min: 3, max: 1_000_000 },
  country_min_conversion: { min: 0, max: 100 },
  end_user_limit: { min: 1, max: 10_000 },
  end_user_window_seconds: { min: 60, max: 86_400 },
} as const;

/**
 * The defaults an operator may change (OTP_GUARD_*): an hour's window; a prefix that asked for 20
 * codes and verified fewer than 20 % of them is held (a real sign-up flow verifies well over half),
 * a whole country at 200 codes under 10 %; 5 codes an hour per end-user key.
 */
export const DEFAULT_GUARD: GuardSettings = Object.freeze({
  enabled: true,
  windowSeconds: 3600,
  prefix: { minRequests: 20, minConversion: 20 },
  country: { minRequests: 200, minConversion: 10 },
  endUser: { limit: 5, windowSeconds: 3600 },
});

/** Whether a scope's counts trip its threshold: enough codes asked, too few verified (a 0 % threshold never trips). */
export function trips(counts: WindowCounts, threshold: Threshold): boolean {
  return counts.requests >= threshold.minRequests && counts.verified * 100 < threshold.minConversion * counts.requests;
}

/** The scope to hold after a code was counted, the narrowest first: the prefix, else the country; undefined when neither trips. */
export function holdToMake(counts: { prefix: WindowCounts; country: WindowCounts }, settings: GuardSettings): HoldScope | undefined {
  if (!settings.enabled) return undefined;
  if (trips(counts.prefix, settings.prefix)) return 'prefix';
  if (trips(counts.country, settings.country)) return 'country';
  return undefined;
}

/** verified / requested in percent, two decimals; 0 when nothing was asked. */
export function conversionRate(verified: number, requested: number): number {
  return requested === 0 ? 0 : Math.round((verified * 10_000) / requested) / 100;
}

/** Settings as a form or an RPC gives them (snake_case names, as the dashboard's fields). */
export interface GuardSettingsInput {
  enabled: boolean;
  window_seconds: number;
  prefix_min_requests: number;
  prefix_min_conversion: number;
  country_min_requests: number;
  country_min_conversion: number;
  end_user_limit: number;
  end_user_window_seconds: number;
}

/** The settings, or VALIDATION_ERROR naming each value outside its bounds (whole numbers only). */
export function checkGuardSettings(input: GuardSettingsInput): GuardSettings {
  const details: ErrorDetail[] = [];
  for (const [field, { min, max }] of Object.entries(GUARD_BOUNDS)) {
    const value = input[field as keyof typeof GUARD_BOUNDS];
    if (!Number.isInteger(value) || value < min || value > max) {
      details.push({ field, code: 'VALIDATION_ERROR', message: `Le champ ${field} doit être un nombre entier entre ${min} et ${max}.` });
    }
  }
  if (details.length === 1) throw new AppError('VALIDATION_ERROR', { message: details[0]!.message, details });
  if (details.length > 1) throw new AppError('VALIDATION_ERROR', { details });
  return {
    enabled: input.enabled,
    windowSeconds: input.window_seconds,
    prefix: { minRequests: input.prefix_min_requests, minConversion: input.prefix_min_conversion },
    country: { minRequests: input.country_min_requests, minConversion: input.country_min_conversion },
    endUser: { limit: input.end_user_limit, windowSeconds: input.end_user_window_seconds },
  };
}

/** The settings under their snake_case names (the inverse of `checkGuardSettings`). */
export function settingsInput(s: GuardSettings): GuardSettingsInput {
  return {
    enabled: s.enabled,
    window_seconds: s.windowSeconds,
    prefix_min_requests: s.prefix.minRequests,
    prefix_min_conversion: s.prefix.minConversion,
    country_min_requests: s.country.minRequests,
    country_min_conversion: s.country.minConversion,
    end_user_limit: s.endUser.limit,
    end_user_window_seconds: s.endUser.windowSeconds,
  };
}

/** At most this many characters of an end-user key (an IP address, an account id). */
export const MAX_END_USER_KEY = 128;
