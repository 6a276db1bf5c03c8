import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { AppError, countryAllowed, isStorableText, type Destinations } from '@smsgw/platform';

// The rules of a send, as the gateway's (services/gateway/src/domain/send-request.ts and
// destination-rules.ts) checks them for POST /v1/sms/send, with the same limits and codes.

export const MAX_MESSAGE_CHARACTERS = 1600;
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600_000;
export const TTL_SECONDS = { min: 60, max: 604_800 };

/** SMPP's TON (type of number) of an international number. */
const TON_INTERNATIONAL = 1;

/**
 * The E.164 form of a destination address: `+` and digits, or digits with TON international (1),
 * or `00` and digits; INVALID_PHONE_NUMBER for anything else or a number that is not valid.
 */
export function destinationNumber(address: string, ton: number): string {
  const trimmed = address.trim();
  let candidate: string | undefined;
  if (/^\+\d{6,15}$/.test(trimmed)) candidate = trimmed;
  else if (/^00\d{6,15}$/.test(trimmed)) candidate = `+${trimmed.slice(2)}`;
  else if (ton === TON_INTERNATIONAL && /^\d{6,15}$/.test(trimmed)) candidate = `+${trimmed}`;
  const parsed = candidate ? parsePhoneNumberFromString(candidate) : undefined;
  if (!parsed?.isValid()) throw new AppError('INVALID_PHONE_NUMBER');
  return parsed.number;
}

export function checkText(text: string): void {
  if (text.trim() === '') throw new AppError('MESSAGE_REQUIRED');
  if (!isStorableText(text)) throw new AppError('INVALID_CHARACTER');
  if (Array.from(text).length > MAX_MESSAGE_CHARACTERS) throw new AppError('MESSAGE_TOO_LONG');
}

/** The client's destination countries (empty: every one), as the gateway checks them. */
export function checkDestination(destinations: Pick<Destinations, 'smsCountries'>, to: string): void {
  if (destinations.smsCountries.length === 0) return;
  const country = parsePhoneNumberFromString(to)?.country;
  if (!countryAllowed(destinations.smsCountries, country)) throw new AppError('DESTINATION_NOT_ALLOWED');
}

/** A schedule in the future, 30 days ahead at most (INVALID_SCHEDULED_AT). */
export function checkSchedule(at: Date | undefined, now: Date): Date | undefined {
  if (!at) return undefined;
  // A time already reached is "now": SMPP clients often send their clock's now.
  if (at.getTime() <= now.getTime()) return undefined;
  if (at.getTime() > now.getTime() + MAX_SCHEDULE_AHEAD_MS) throw new AppError('INVALID_SCHEDULED_AT');
  return at;
}

/**
 * The ttl of a validity period: the seconds from the message's start (its schedule, or now) to
 * the period's end, kept within the API's bounds (a minute to a week); undefined without a period
 * (the client's default ttl).
 */
export function ttlOfValidity(validUntil: Date | undefined, start: Date): number | undefined {
  if (!validUntil) return undefined;
  const seconds = Math.round((validUntil.getTime() - start.getTime()) / 1000);
  return Math.min(TTL_SECONDS.max, Math.max(TTL_SECONDS.min, seconds));
}

/**
 * SMPP's priority_flag (0 lowest to 3 highest) as our priorities (1 very high to 5 very low): 0
 * is the usual default and stays normal (3); 1 is high (2); 2 and 3 are very high (1).
 */
export function priorityOf(flag: number): number {
  if (flag >= 2) return 1;
  if (flag === 1) return 2;
  return 3;
}
