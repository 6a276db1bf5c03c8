import type { account, otp } from '@smsgw/proto';
import { OptionError } from './fleet';

/** A list option: comma-separated values, upper-cased; `all` or `none` is the empty list; absent: undefined (kept). */
export function listOption(name: string, value: string | undefined, empty: 'all' | 'none'): string[] | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.toLowerCase() === empty) return [];
  const items = trimmed
    .split(',')
    .map((v) => v.trim().toUpperCase())
    .filter(Boolean);
  if (items.length === 0) throw new OptionError(`--${name} needs values separated by commas, or ${empty}`);
  return items;
}

/** `--enabled true|false`; absent: undefined (kept). */
export function booleanOption(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new OptionError(`--${name} must be true or false`);
  return value === 'true';
}

export interface DestinationsChange {
  smsCountries?: string[];
  otpCountries?: string[];
  otpNumberTypes?: string[];
}

export const destinationsJson = (c: account.Client__Output) => ({
  client_id: c.clientId,
  // Empty: every country.
  sms_countries: c.smsCountries,
  otp_countries: c.otpCountries,
  otp_number_types: c.otpNumberTypes,
});

export type GuardChange = Partial<Omit<otp.GuardSettings, 'clientId' | 'defaults'>>;

export const guardJson = (g: otp.GuardSettings__Output) => ({
  client_id: g.clientId,
  enabled: g.enabled,
  window_seconds: g.windowSeconds,
  prefix_min_requests: g.prefixMinRequests,
  prefix_min_conversion: g.prefixMinConversion,
  country_min_requests: g.countryMinRequests,
  country_min_conversion: g.countryMinConversion,
  end_user_limit: g.endUserLimit,
  end_user_window_seconds: g.endUserWindowSeconds,
  defaults: g.defaults,
});

export const holdJson = (h: otp.Hold__Output) => ({
  hold_id: h.holdId,
  mode: h.mode === 'MODE_TEST' ? 'test' : 'live',
  scope: h.scope,
  prefix: h.prefix,
  country: h.country,
  requests: h.requests,
  verified: h.verified,
  held_at: h.heldAt,
  held_until: h.heldUntil,
  released_at: h.releasedAt || null,
  active: h.active,
});
