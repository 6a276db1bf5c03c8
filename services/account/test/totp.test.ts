import { base32, codeAt, matchingStep, otpauthUri, recoveryCodeHash, stepAt } from '../src/domain/totp';

// RFC 6238, appendix B: the SHA-1 secret "12345678901234567890" and its codes (the last 6 of 8 digits).
const RFC_SECRET = Buffer.from('12345678901234567890');
const RFC_VECTORS: [number, string][] = [
  [59, '287082'],
  [1111111109, '081804'],
  [1111111111, '050471'],
  [1234567890, '005924'],
  [2000000000, '279037'],
  [20000000000, '353130'],
];

describe('TOTP (RFC 6238)', () => {
  it("when the RFC's test times are given, then the codes are the RFC's", () => {
    for (const [seconds, code] of RFC_VECTORS) expect([seconds, codeAt(RFC_SECRET, stepAt(seconds * 1000))]).toEqual([seconds, code]);
  });

  it('when a code is typed, then it matches its step or one either side, never an older step than the last taken, nor a malformed one', () => {
    const now = 1234567890_000;
    const step = stepAt(now);
    expect(matchingStep(RFC_SECRET, '005924', now, 0)).toBe(step);
    expect(matchingStep(RFC_SECRET, ' 005 924 ', now, 0)).toBe(step);
    expect(matchingStep(RFC_SECRET, codeAt(RFC_SECRET, step - 1), now, 0)).toBe(step - 1);
    expect(matchingStep(RFC_SECRET, codeAt(RFC_SECRET, step + 1), now, 0)).toBe(step + 1);
    expect(matchingStep(RFC_SECRET, codeAt(RFC_SECRET, step + 2), now, 0)).toBeUndefined();
    expect(matchingStep(RFC_SECRET, '005924', now, step)).toBeUndefined();
    expect(matchingStep(RFC_SECRET, '00592', now, 0)).toBeUndefined();
    expect(matchingStep(RFC_SECRET, 'abcdef', now, 0)).toBeUndefined();
  });

  it('when a secret is written for an app, then it is base32 in an otpauth URI with its issuer and account', () => {
    expect(base32(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    const uri = new URL(otpauthUri(RFC_SECRET, 'ana@example.com', 'SMS Gateway'));
    expect(uri.protocol).toBe('otpauth:');
    expect(decodeURIComponent(uri.pathname)).toBe('/SMS Gateway:ana@example.com');
    expect(uri.searchParams.get('secret')).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(uri.searchParams.get('issuer')).toBe('SMS Gateway');
  });

  it('when a recovery code is typed with another case or without its dash, then its hash is the same', () => {
    expect(recoveryCodeHash('abcde-fghjk').equals(recoveryCodeHash('ABCDEFGHJK'))).toBe(true);
    expect(recoveryCodeHash('abcde-fghjk').equals(recoveryCodeHash('abcde-fghjm'))).toBe(false);
  });
});
