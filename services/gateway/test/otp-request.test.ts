import { AppError } from '@smsgw/platform';
import { parseSendOtpRequest, parseVerifyOtpRequest } from '../src/domain/otp-request';

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a validation error');
}

describe('OTP request validation', () => {
  it('when only `to` is given, then it is normalised and the defaults apply', () => {
    expect(parseSendOtpRequest({ to: ' +33 6 12 34 56 78 ' })).toEqual({
      to: '+33612345678',
      length: 6,
      expirySeconds: 300,
      template: undefined,
      metadata: undefined,
      failover: false,
    });
  });

  it.each([3, 9, 6.5, '6'])('when length is %p, then INVALID_OTP_LENGTH', (length) => {
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', length })).code).toBe('INVALID_OTP_LENGTH');
  });

  it.each([29, 3601, 0, -5, 60.5, '300'])('when expiry is %p, then INVALID_OTP_EXPIRY', (expiry) => {
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', expiry })).code).toBe('INVALID_OTP_EXPIRY');
  });

  it('when the bounds are met, then they are accepted', () => {
    expect(parseSendOtpRequest({ to: '+33612345678', length: 4, expiry: 30 })).toMatchObject({ length: 4, expirySeconds: 30 });
    expect(parseSendOtpRequest({ to: '+33612345678', length: 8, expiry: 3600 })).toMatchObject({ length: 8, expirySeconds: 3600 });
  });

  it('when the template lacks {{code}}, then INVALID_TEMPLATE; when the text with the code passes 1600 characters, then MESSAGE_TOO_LONG', () => {
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', template: 'Votre code' })).code).toBe('INVALID_TEMPLATE');
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', template: 42 })).code).toBe('INVALID_TEMPLATE');
    const template = `${'é'.repeat(1592)}{{code}}`;
    expect(parseSendOtpRequest({ to: '+33612345678', template, length: 8 }).template).toBe(template);
    expect(failure(() => parseSendOtpRequest({ to: '+33612345678', template: `x${template}`, length: 8 })).code).toBe('MESSAGE_TOO_LONG');
  });

  it('when several fields fail, then VALIDATION_ERROR lists each', () => {
    const err = failure(() => parseSendOtpRequest({ to: '0612', length: 2, metadata: [] }));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.details!.map((d) => [d.field, d.code])).toEqual([
      ['to', 'INVALID_PHONE_NUMBER'],
      ['length', 'INVALID_OTP_LENGTH'],
      ['metadata', 'METADATA_TOO_LARGE'],
    ]);
  });

  it('when otp_id or code is missing or not a string, then VALIDATION_ERROR naming the field', () => {
    expect(parseVerifyOtpRequest({ otp_id: 'otp_X', code: '123456' })).toEqual({ otpId: 'otp_X', code: '123456' });
    const one = failure(() => parseVerifyOtpRequest({ otp_id: 'otp_X' }));
    expect([one.code, one.details!.map((d) => d.field)]).toEqual(['VALIDATION_ERROR', ['code']]);
    const both = failure(() => parseVerifyOtpRequest({ code: 123456 }));
    expect(both.details!.map((d) => d.field)).toEqual(['otp_id', 'code']);
  });
});
