import { numberOrigin } from '@smsgw/platform';
import { prefixOf } from './otp-guard';

/** Where an OTP goes, as its record and the pumping guard keep it. */
export interface Destination {
  /** ISO 3166-1 alpha-2, from libphonenumber's metadata; `ZZ` when no country claims the number. */
  country: string;
  /** The number without its last digits (`prefixOf`). */
  prefix: string;
  /** `+33`: what a country hold shows as its prefix. */
  callingCode: string;
}

/** The destination of an E.164 number (the gateway checked it is valid). */
export function destinationOf(e164: string): Destination {
  const { country, callingCode } = numberOrigin(e164);
  return { country: country ?? 'ZZ', prefix: prefixOf(e164), callingCode: callingCode ?? e164.slice(0, 3) };
}
