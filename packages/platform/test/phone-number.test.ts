import {
  countryOf,
  e164InCountry,
  isE164Number,
  isKnownCountry,
  normalizePhoneNumber,
  numberOrigin,
  numberTypeOf,
} from '../src/phone-number';

describe('phone numbers', () => {
  it('when a number is written with + and the country code, spaces and punctuation allowed, then its E.164 form is given', () => {
    expect(normalizePhoneNumber(' +33 6 12-34-56-78 ')).toBe('+33612345678');
    expect(isE164Number('+33612345678')).toBe(true);
    expect(isE164Number('+33 6 12 34 56 78')).toBe(false);
  });

  it('when a number has no +, is not valid, or is not text, then there is none', () => {
    expect([normalizePhoneNumber('0612345678'), normalizePhoneNumber('+3361'), normalizePhoneNumber(33612345678)]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("when a number's country, calling code and type are asked, then libphonenumber's full metadata says them", () => {
    expect([countryOf('+33612345678'), countryOf('+32470123456')]).toEqual(['FR', 'BE']);
    expect(numberOrigin('+33612345678')).toEqual({ country: 'FR', callingCode: '+33' });
    expect(numberTypeOf('+33612345678')).toBe('MOBILE');
    expect(numberTypeOf('+33899123456')).toBe('PREMIUM_RATE');
  });

  it('when a network gives a national number, then it is read in the phone country, and a name is not a number', () => {
    expect(e164InCountry('0612345678', 'FR')).toBe('+33612345678');
    expect(e164InCountry('0612345678', undefined)).toBeUndefined();
    expect(e164InCountry('BANK', 'FR')).toBeUndefined();
  });

  it('when a country code is checked, then only the two letters libphonenumber knows pass', () => {
    expect([isKnownCountry('FR'), isKnownCountry('XX'), isKnownCountry('fr')]).toEqual([true, false, false]);
  });
});
