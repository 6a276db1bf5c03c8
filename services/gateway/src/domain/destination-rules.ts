import {
  AppError,
  countryAllowed,
  countryOf,
  isSpecialNumberType,
  numberTypeOf,
  type Destinations,
  type ErrorDetail,
} from '@smsgw/platform';

// Where a client's sends may go (issue 39): the countries of ordinary sends and of OTPs, and the
// number types OTPs never reach unless the client allows them. The lists come with the verified
// key (account.VerifyApiKey), so a check costs no call; with the default lists (every country) an
// ordinary send is not even parsed again.

function notAllowed(details: ErrorDetail[]): AppError {
  return new AppError('DESTINATION_NOT_ALLOWED', {
    message:
      details.length === 1
        ? `Ce pays de destination (${typeof details[0]!.country === 'string' ? details[0]!.country : 'inconnu'}) n'est pas autorisé pour ce compte.`
        : undefined,
    details,
  });
}

/**
 * The ordinary sends' rule: every number's country is in the client's list (all or nothing, as a
 * batch is: each refused number is named by its field). `numbers` pairs each number with its field.
 */
export function checkSmsDestinations(destinations: Destinations, numbers: readonly { to: string; field: string }[]): void {
  if (destinations.smsCountries.length === 0) return;
  const details: ErrorDetail[] = [];
  for (const { to, field } of numbers) {
    const country = countryOf(to);
    if (!countryAllowed(destinations.smsCountries, country)) {
      details.push({
        field,
        code: 'DESTINATION_NOT_ALLOWED',
        message: new AppError('DESTINATION_NOT_ALLOWED').message,
        country: country ?? null,
      });
    }
  }
  if (details.length > 0) throw notAllowed(details);
}

/**
 * send-otp's rules: the country is in the client's OTP list (403 DESTINATION_NOT_ALLOWED), then the
 * number is not of a type that is never a user's phone (premium rate, shared cost, ...) unless
 * the client allows that type (400 NUMBER_TYPE_NOT_ALLOWED, `details` naming the type).
 */
export function checkOtpDestination(destinations: Destinations, to: string): void {
  const country = countryOf(to);
  if (!countryAllowed(destinations.otpCountries, country)) {
    throw notAllowed([
      { field: 'to', code: 'DESTINATION_NOT_ALLOWED', message: new AppError('DESTINATION_NOT_ALLOWED').message, country: country ?? null },
    ]);
  }
  const type = numberTypeOf(to);
  if (isSpecialNumberType(type) && !destinations.otpNumberTypes.includes(type)) {
    throw new AppError('NUMBER_TYPE_NOT_ALLOWED', {
      details: [
        { field: 'to', code: 'NUMBER_TYPE_NOT_ALLOWED', message: new AppError('NUMBER_TYPE_NOT_ALLOWED').message, number_type: type },
      ],
    });
  }
}
