import { isEnvelope } from '@smsgw/e2e-envelope';
import { AppError, isE164Number, MAX_SMS_CHARACTERS, smsCharacters } from '@smsgw/platform';

/**
 * The send rules, whoever calls (the gateway, the OTP service, the dashboard, a scheduled send):
 * a message goes to a valid international number in its E.164 form (INVALID_PHONE_NUMBER) and
 * its text has at most 1600 characters (MESSAGE_TOO_LONG), code points as `measureSms` counts
 * them. The edges check the same before calling, only to name each failing field of a request in
 * their answer; a message that reaches this service breaking a rule is refused with the same code.
 * An encrypted text (an envelope) is measured by the phone, which opens it (docs/api/encryption.md).
 */
export function checkSendRules(m: { to: string; text: string }): void {
  if (!isE164Number(m.to)) throw new AppError('INVALID_PHONE_NUMBER', { details: [{ field: 'to', code: 'INVALID_PHONE_NUMBER' }] });
  if (!isEnvelope(m.text) && smsCharacters(m.text) > MAX_SMS_CHARACTERS) {
    throw new AppError('MESSAGE_TOO_LONG', { details: [{ field: 'message', code: 'MESSAGE_TOO_LONG' }] });
  }
}
