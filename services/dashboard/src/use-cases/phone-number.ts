/**
 * What the dashboard says of a number it refuses (the API's INVALID_PHONE_NUMBER, in words); the
 * rule itself is the platform's `normalizePhoneNumber`, so the dashboard accepts exactly the
 * numbers the API accepts.
 */
export const INVALID_NUMBER = 'This is not a valid international number: start with + and the country code, for example +33612345678.';
