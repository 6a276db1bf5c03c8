// Phone numbers, one rule for the whole platform: what a valid international number is and its
// E.164 form (the API's `to`, the dashboard's forms, the inbox's senders), its country and its
// number type (libphonenumber's full metadata), and the country codes libphonenumber knows.
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

/** The E.164 form of a valid international number (written with `+` and the country code, spaces and punctuation allowed), or undefined. */
export function normalizePhoneNumber(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.trim().startsWith('+')) return undefined;
  const parsed = parsePhoneNumberFromString(value.trim());
  return parsed?.isValid() ? parsed.number : undefined;
}

/** Whether a text is a valid international number already in its E.164 form. */
export const isE164Number = (value: string): boolean => normalizePhoneNumber(value) === value;

/** The country of an E.164 number (ISO 3166-1 alpha-2), undefined when none claims it. */
export function countryOf(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.country;
}

/** The number type libphonenumber gives an E.164 number (MOBILE, PREMIUM_RATE, ...), undefined when it cannot tell. */
export function numberTypeOf(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.getType();
}

/** What an OTP's record and the pumping guard keep of an E.164 number: its country (or undefined) and calling code (`+33`). */
export function numberOrigin(e164: string): { country?: string; callingCode?: string } {
  const parsed = parsePhoneNumberFromString(e164);
  return { country: parsed?.country, callingCode: parsed ? `+${parsed.countryCallingCode}` : undefined };
}

/**
 * A number as a network gives it, read in `country` when it is written the national way
 * (`0612345678` in FR is `+33612345678`): its E.164 form when it is a valid number, else undefined
 * (a sender name, a short code, or a national number of an unknown country).
 */
export function e164InCountry(value: string, country: string | undefined): string | undefined {
  if (!/[0-9]/.test(value)) return undefined;
  const parsed = parsePhoneNumberFromString(value, country ? { defaultCountry: country as CountryCode } : undefined);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** Whether libphonenumber knows an ISO 3166-1 alpha-2 country code. */
export const isKnownCountry = (code: string): boolean => /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
