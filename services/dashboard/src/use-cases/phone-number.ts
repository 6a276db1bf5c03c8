import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The E.164 form of a valid international number, or undefined: the gateway's check of a send's
 * `to` (services/gateway/src/domain/send-request.ts), so that the dashboard accepts exactly the
 * numbers the API accepts. @smsgw/platform has no such check yet: when it gets one, use it here.
 */
export function normalizePhoneNumber(value: string): string | undefined {
  if (!value.trim().startsWith('+')) return undefined;
  const parsed = parsePhoneNumberFromString(value.trim());
  return parsed?.isValid() ? parsed.number : undefined;
}

/** What the dashboard says of a number it refuses (the API's INVALID_PHONE_NUMBER, in words). */
export const INVALID_NUMBER = 'This is not a valid international number: start with + and the country code, for example +33612345678.';
