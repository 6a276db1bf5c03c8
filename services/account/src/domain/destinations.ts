import { AppError, isKnownCountry, isSpecialNumberType, type Destinations, type ErrorDetail } from '@smsgw/platform';

/** At most this many countries in a list: every country libphonenumber knows fits. */
const MAX_COUNTRIES = 300;

/**
 * The lists as given (codes trimmed, upper-cased, de-duplicated, sorted), or VALIDATION_ERROR
 * naming each list with a country libphonenumber does not know or a type that is not special.
 */
export function checkDestinations(input: Destinations): Destinations {
  const details: ErrorDetail[] = [];
  const countries = (field: string, values: readonly string[]): string[] => {
    const codes = [...new Set(values.map((v) => v.trim().toUpperCase()).filter(Boolean))].sort();
    const unknown = codes.filter((c) => !isKnownCountry(c));
    if (unknown.length > 0 || codes.length > MAX_COUNTRIES) {
      details.push({
        field,
        code: 'VALIDATION_ERROR',
        message: `Pays inconnus : ${unknown.slice(0, 5).join(', ')}. Des codes ISO 3166-1 alpha-2 sont attendus (FR, BE, ...).`,
      });
    }
    return codes;
  };
  const smsCountries = countries('sms_countries', input.smsCountries);
  const otpCountries = countries('otp_countries', input.otpCountries);
  const otpNumberTypes = [...new Set(input.otpNumberTypes.map((v) => v.trim().toUpperCase()).filter(Boolean))].sort();
  const badTypes = otpNumberTypes.filter((t) => !isSpecialNumberType(t));
  if (badTypes.length > 0) {
    details.push({
      field: 'otp_number_types',
      code: 'VALIDATION_ERROR',
      message: `Types de numéro inconnus : ${badTypes.slice(0, 5).join(', ')} (PREMIUM_RATE, SHARED_COST, TOLL_FREE, UAN, VOICEMAIL, PAGER).`,
    });
  }
  if (details.length === 1) throw new AppError('VALIDATION_ERROR', { message: details[0]!.message, details });
  if (details.length > 1) throw new AppError('VALIDATION_ERROR', { details });
  return { smsCountries, otpCountries, otpNumberTypes };
}
