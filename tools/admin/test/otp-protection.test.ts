import { OptionError } from '../src/fleet';
import { booleanOption, listOption } from '../src/otp-protection';

describe("the operator's options of destinations and the OTP guard", () => {
  it('when a list is given, then its values are trimmed and upper-cased; all or none is the empty list; absent keeps the value', () => {
    expect(listOption('sms-countries', ' fr, be ,', 'all')).toEqual(['FR', 'BE']);
    expect(listOption('sms-countries', 'ALL', 'all')).toEqual([]);
    expect(listOption('otp-number-types', 'none', 'none')).toEqual([]);
    expect(listOption('otp-countries', undefined, 'all')).toBeUndefined();
    expect(() => listOption('otp-countries', ' , ', 'all')).toThrow(OptionError);
  });

  it('when --enabled is given, then only true or false is taken', () => {
    expect([booleanOption('enabled', 'true'), booleanOption('enabled', 'false'), booleanOption('enabled', undefined)]).toEqual([
      true,
      false,
      undefined,
    ]);
    expect(() => booleanOption('enabled', 'yes')).toThrow('--enabled must be true or false');
  });
});
