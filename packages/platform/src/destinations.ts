// Where a client's sends may go (issue 39): the destination countries of ordinary sends and of
// OTPs, and the number types that are never a user's phone. The account service keeps each
// client's lists, the gateway checks every send against them; these are the shared names.

/**
 * libphonenumber's number types that are never an end user's phone: premium-rate and shared-cost
 * ranges (the targets of SMS pumping), toll-free and universal access numbers of businesses,
 * voicemail access and pagers. OTPs to them are refused unless the client allows the type.
 */
export const SPECIAL_NUMBER_TYPES = ['PREMIUM_RATE', 'SHARED_COST', 'TOLL_FREE', 'UAN', 'VOICEMAIL', 'PAGER'] as const;
export type SpecialNumberType = (typeof SPECIAL_NUMBER_TYPES)[number];

export const isSpecialNumberType = (value: unknown): value is SpecialNumberType =>
  typeof value === 'string' && (SPECIAL_NUMBER_TYPES as readonly string[]).includes(value);

/** A client's destinations. An empty country list is every country (the default). */
export interface Destinations {
  /** ISO 3166-1 alpha-2 codes ordinary sends (send, bulk, personalised, campaigns) may reach. */
  smsCountries: readonly string[];
  /** The same for OTPs. */
  otpCountries: readonly string[];
  /** Special number types OTPs may reach anyway. */
  otpNumberTypes: readonly string[];
}

export const ALL_DESTINATIONS: Destinations = Object.freeze({ smsCountries: [], otpCountries: [], otpNumberTypes: [] });

/** Whether a list lets `country` in: an empty list lets every country in, an unknown country (undefined) only then. */
export function countryAllowed(list: readonly string[], country: string | undefined): boolean {
  return list.length === 0 || (country !== undefined && list.includes(country));
}
