import { AppError, countryAllowed, countryOf, normalizePhoneNumber, type Destinations } from '@smsgw/platform';

// What a submit's fields mean as a send: the destination address with its TON, the schedule and
// validity period in SMPP's times, the priority flag; the client's destination countries, the
// edges' policy as the gateway's (platform `countryAllowed`). The send rules themselves (a valid
// E.164 number, a text present, storable, 1600 characters at most) are the message service's
// (services/message/src/domain/send-rules.ts, outgoing-message.ts): its refusals are mapped to
// SMPP statuses (smpp-status.ts).

export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600_000;
export const TTL_SECONDS = { min: 60, max: 604_800 };

/** SMPP's TON (type of number) of an international number. */
const TON_INTERNATIONAL = 1;

/**
 * The E.164 form of a destination address: `+` and digits, or digits with TON international (1),
 * or `00` and digits, then the platform's phone-number rule; INVALID_PHONE_NUMBER for anything
 * else or a number that is not valid (the E.164 form is what Send and the destination countries take).
 */
export function destinationNumber(address: string, ton: number): string {
  const trimmed = address.trim();
  let candidate: string | undefined;
  if (/^\+\d{6,15}$/.test(trimmed)) candidate = trimmed;
  else if (/^00\d{6,15}$/.test(trimmed)) candidate = `+${trimmed.slice(2)}`;
  else if (ton === TON_INTERNATIONAL && /^\d{6,15}$/.test(trimmed)) candidate = `+${trimmed}`;
  const number = candidate && normalizePhoneNumber(candidate);
  if (!number) throw new AppError('INVALID_PHONE_NUMBER');
  return number;
}

/**
 * A submit without a text (an empty short_message and no message_payload, or only spaces):
 * MESSAGE_REQUIRED before any phone is chosen, as the gateway answers a blank `message`.
 */
export function checkTextGiven(text: string): void {
  if (text.trim() === '') throw new AppError('MESSAGE_REQUIRED');
}

/** The client's destination countries (empty: every one), as the gateway checks them. */
export function checkDestination(destinations: Pick<Destinations, 'smsCountries'>, to: string): void {
  if (destinations.smsCountries.length === 0) return;
  if (!countryAllowed(destinations.smsCountries, countryOf(to))) throw new AppError('DESTINATION_NOT_ALLOWED');
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
