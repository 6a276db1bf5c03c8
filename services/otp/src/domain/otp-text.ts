import { AppError, MAX_SMS_CHARACTERS, smsCharacters } from '@smsgw/platform';
import { DEFAULT_LENGTH, MAX_LENGTH, MIN_LENGTH } from './otp-code';

export const PLACEHOLDER = '{{code}}';
/** The specification's text without a template: this sentence followed by the code. */
export const DEFAULT_TEMPLATE = `Votre code de vérification est : ${PLACEHOLDER}`;

export const DEFAULT_EXPIRY_SECONDS = 300;
/**
 * Long enough to receive an SMS and type its code; at most an hour, the span
 * of the per-number limit. The catalog's INVALID_OTP_EXPIRY message names these bounds.
 */
export const MIN_EXPIRY_SECONDS = 30;
export const MAX_EXPIRY_SECONDS = 3600;

/** The character that stands for each digit of the code wherever the text is shown or stored. */
export const MASK_CHARACTER = '*';

export interface OtpOptions {
  length: number;
  expirySeconds: number;
  template: string;
}

/**
 * The request's options with their defaults (0 or empty: the default),
 * or the first rule they break.
 */
export function otpOptions(input: { length: number; expirySeconds: number; template: string }): OtpOptions {
  const length = input.length || DEFAULT_LENGTH;
  if (!Number.isInteger(length) || length < MIN_LENGTH || length > MAX_LENGTH)
    throw new AppError('INVALID_OTP_LENGTH', { details: [{ field: 'length', code: 'INVALID_OTP_LENGTH' }] });
  const expirySeconds = input.expirySeconds || DEFAULT_EXPIRY_SECONDS;
  if (!Number.isInteger(expirySeconds) || expirySeconds < MIN_EXPIRY_SECONDS || expirySeconds > MAX_EXPIRY_SECONDS) {
    throw new AppError('INVALID_OTP_EXPIRY', { details: [{ field: 'expiry', code: 'INVALID_OTP_EXPIRY' }] });
  }
  const template = input.template || DEFAULT_TEMPLATE;
  if (!template.includes(PLACEHOLDER))
    throw new AppError('INVALID_TEMPLATE', { details: [{ field: 'template', code: 'INVALID_TEMPLATE' }] });
  if (renderedLength(template, length) > MAX_SMS_CHARACTERS)
    throw new AppError('MESSAGE_TOO_LONG', { details: [{ field: 'template', code: 'MESSAGE_TOO_LONG' }] });
  return { length, expirySeconds, template };
}

/** Characters (code points) of the text once every placeholder holds a code of `length` digits. */
export function renderedLength(template: string, length: number): number {
  return smsCharacters(template.split(PLACEHOLDER).join('0'.repeat(length)));
}

/** The SMS text (what the phone sends) and the same text with the code masked (what is stored and shown). */
export function renderText(template: string, code: string): { text: string; masked: string } {
  const parts = template.split(PLACEHOLDER);
  return { text: parts.join(code), masked: parts.join(MASK_CHARACTER.repeat(code.length)) };
}
