import { randomBytes } from 'node:crypto';
import { codeMatches, hashCode, numberKey, randomCode, testCode } from '../src/domain/otp-code';
import { otpOptions, renderText } from '../src/domain/otp-text';
import { verifyOutcome } from '../src/domain/otp-verify';

describe('OTP rules', () => {
  it('when codes are drawn, then each has the length asked, only digits, and every digit value shows up evenly at every position', () => {
    const counts = Array.from({ length: 4 }, () => new Array<number>(10).fill(0));
    for (let i = 0; i < 20_000; i++) {
      const code = randomCode(4);
      expect(code).toMatch(/^\d{4}$/);
      [...code].forEach((d, p) => counts[p]![Number(d)]!++);
    }
    // 2000 expected per cell; 6 standard deviations (~6 × 42) of slack.
    for (const position of counts) for (const c of position) expect(Math.abs(c - 2000)).toBeLessThan(260);
  });

  it('when a test key asks, then the code is the first digits of 12345678', () => {
    expect([4, 5, 6, 7, 8].map(testCode)).toEqual(['1234', '12345', '123456', '1234567', '12345678']);
  });

  it('when a code is hashed, then only the same code of the same OTP under the same key matches', () => {
    const key = randomBytes(32);
    const stored = hashCode(key, 'otp_A', '123456');
    expect(codeMatches(key, 'otp_A', '123456', stored)).toBe(true);
    expect(codeMatches(key, 'otp_A', '123457', stored)).toBe(false);
    expect(codeMatches(key, 'otp_B', '123456', stored)).toBe(false);
    expect(codeMatches(randomBytes(32), 'otp_A', '123456', stored)).toBe(false);
    expect(numberKey(key, '+33612345678')).not.toContain('33612345678');
  });

  it('when options are omitted, then 6 digits, 300 s and the French sentence; out of bounds, then the field code', () => {
    expect(otpOptions({ length: 0, expirySeconds: 0, template: '' })).toEqual({
      length: 6,
      expirySeconds: 300,
      template: 'Votre code de vérification est : {{code}}',
    });
    expect(() => otpOptions({ length: 9, expirySeconds: 0, template: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OTP_LENGTH' }),
    );
    expect(() => otpOptions({ length: 6, expirySeconds: 3601, template: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OTP_EXPIRY' }),
    );
    expect(() => otpOptions({ length: 6, expirySeconds: 60, template: '{code}' })).toThrow(
      expect.objectContaining({ code: 'INVALID_TEMPLATE' }),
    );
  });

  it('when a text is rendered, then the phone text holds the code and the stored text holds as many stars', () => {
    expect(renderText('A {{code}} B {{code}}', '0427')).toEqual({ text: 'A 0427 B 0427', masked: 'A **** B ****' });
  });

  it('when a verify is decided, then verified beats spent beats expired, and a wrong code leaves 2, 1, 0', () => {
    expect(() => verifyOutcome({ attempts: 3, verified: true, expired: true }, true)).toThrow(
      expect.objectContaining({ code: 'OTP_ALREADY_VERIFIED' }),
    );
    expect(() => verifyOutcome({ attempts: 3, verified: false, expired: true }, true)).toThrow(
      expect.objectContaining({ code: 'OTP_MAX_ATTEMPTS' }),
    );
    expect(() => verifyOutcome({ attempts: 2, verified: false, expired: true }, true)).toThrow(
      expect.objectContaining({ code: 'OTP_EXPIRED' }),
    );
    expect(verifyOutcome({ attempts: 2, verified: false, expired: false }, true)).toEqual({ valid: true });
    expect([0, 1, 2].map((attempts) => verifyOutcome({ attempts, verified: false, expired: false }, false))).toEqual([
      { valid: false, attemptsRemaining: 2 },
      { valid: false, attemptsRemaining: 1 },
      { valid: false, attemptsRemaining: 0 },
    ]);
  });
});
