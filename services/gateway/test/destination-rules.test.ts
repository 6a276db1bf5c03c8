import { ALL_DESTINATIONS, AppError, countryOf } from '@smsgw/platform';
import { checkOtpDestination, checkSmsDestinations } from '../src/domain/destination-rules';
import { parseSendOtpRequest } from '../src/domain/otp-request';

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe("a client's destinations and the OTP request's new fields", () => {
  const frOnly = { ...ALL_DESTINATIONS, smsCountries: ['FR'], otpCountries: ['FR', 'BE'] };

  it('when the lists are empty (the default), then every country and every mobile number passes', () => {
    expect(() => checkSmsDestinations(ALL_DESTINATIONS, [{ to: '+14155550100', field: 'to' }])).not.toThrow();
    expect(() => checkOtpDestination(ALL_DESTINATIONS, '+447700900123')).not.toThrow();
  });

  it('when a batch holds numbers outside the list, then 403 DESTINATION_NOT_ALLOWED names each with its country, and nothing passes', () => {
    const err = failure(() =>
      checkSmsDestinations(frOnly, [
        { to: '+33612345678', field: 'recipients[0]' },
        { to: '+32470123456', field: 'recipients[1]' },
        { to: '+14155550100', field: 'recipients[2]' },
      ]),
    );
    expect([err.code, err.httpStatus]).toEqual(['DESTINATION_NOT_ALLOWED', 403]);
    expect(err.details).toEqual([
      expect.objectContaining({ field: 'recipients[1]', code: 'DESTINATION_NOT_ALLOWED', country: 'BE' }),
      expect.objectContaining({ field: 'recipients[2]', code: 'DESTINATION_NOT_ALLOWED', country: 'US' }),
    ]);
    const one = failure(() => checkSmsDestinations(frOnly, [{ to: '+32470123456', field: 'to' }]));
    expect(one.message).toBe("Ce pays de destination (BE) n'est pas autorisé pour ce compte.");
  });

  it('when an OTP goes to a country outside the OTP list, then DESTINATION_NOT_ALLOWED; the OTP list is not the send list', () => {
    expect(() => checkOtpDestination(frOnly, '+32470123456')).not.toThrow();
    expect(failure(() => checkOtpDestination(frOnly, '+14155550100')).code).toBe('DESTINATION_NOT_ALLOWED');
  });

  it.each([
    ['+33899123456', 'PREMIUM_RATE'],
    ['+33810123456', 'SHARED_COST'],
    ['+33800123456', 'TOLL_FREE'],
    ['+19005551234', 'PREMIUM_RATE'],
  ])('when an OTP goes to %s, then 400 NUMBER_TYPE_NOT_ALLOWED with its type (%s), unless the client allows that type', (to, type) => {
    const err = failure(() => checkOtpDestination(ALL_DESTINATIONS, to));
    expect([err.code, err.httpStatus]).toEqual(['NUMBER_TYPE_NOT_ALLOWED', 400]);
    expect(err.details).toEqual([expect.objectContaining({ field: 'to', number_type: type })]);
    expect(() => checkOtpDestination({ ...ALL_DESTINATIONS, otpNumberTypes: [type] }, to)).not.toThrow();
    // Ordinary sends are not concerned by number types.
    expect(() => checkSmsDestinations(ALL_DESTINATIONS, [{ to, field: 'to' }])).not.toThrow();
  });

  it("when a number's country is looked up, then libphonenumber's metadata says it", () => {
    expect([countryOf('+33612345678'), countryOf('+32470123456'), countryOf('+14155550100')]).toEqual(['FR', 'BE', 'US']);
  });

  it('when end_user_key and fallback_after are given, then they are kept; out of their bounds, VALIDATION_ERROR names each', () => {
    expect(parseSendOtpRequest({ to: '+33612345678', end_user_key: '203.0.113.7', fallback_after: 30 })).toMatchObject({
      endUserKey: '203.0.113.7',
      fallbackAfterSeconds: 30,
    });
    const err = failure(() => parseSendOtpRequest({ to: '+33612345678', end_user_key: '', fallback_after: 300 }));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details?.map((d) => d.field)).toEqual(['end_user_key', 'fallback_after']);
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', end_user_key: 'x'.repeat(129) })).details?.[0]?.field).toBe(
      'end_user_key',
    );
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', fallback_after: 9 })).message).toMatch(/fallback_after/);
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', expiry: 60, fallback_after: 60 })).code).toBe('VALIDATION_ERROR');
  });
});
