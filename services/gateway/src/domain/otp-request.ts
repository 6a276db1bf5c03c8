import { isStorableText, MAX_SMS_CHARACTERS, normalizePhoneNumber, smsCharacters } from '@smsgw/platform';
import { checkFailover, checkMetadata, checkSim, FieldErrors } from './send-request';

export const OTP_PLACEHOLDER = '{{code}}';
export const OTP_LENGTH = { min: 4, max: 8, default: 6 };
/** Seconds: long enough to receive an SMS and type its code, at most the hour of the per-number limit. */
export const OTP_EXPIRY = { min: 30, max: 3600, default: 300 };
/** `end_user_key`: the caller's key for its end user (an IP address, an account id). */
export const END_USER_KEY_MAX = 128;
/** `fallback_after`: seconds before an undelivered code goes through another phone; below the expiry. */
export const FALLBACK_AFTER_MIN = 10;

export interface SendOtpRequest {
  to: string;
  length: number;
  expirySeconds: number;
  /** Undefined: the default French sentence (the otp service's). */
  template?: string;
  metadata?: Record<string, unknown>;
  /** As SendRequest.failover. An OTP needs no ttl: it is not sent after its expiry. */
  failover: boolean;
  /** As SendRequest.sim. */
  sim?: number;
  /** The caller's key for its end user, limited on its own (the client's end-user limit). */
  endUserKey?: string;
  /** Seconds after which a code not yet delivered goes through another phone; undefined: only after a failure. */
  fallbackAfterSeconds?: number;
}

export interface VerifyOtpRequest {
  otpId: string;
  code: string;
}

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

/** POST /v1/sms/send-otp, every failing field reported at once. */
export function parseSendOtpRequest(body: Record<string, unknown>): SendOtpRequest {
  const errors = new FieldErrors();
  const to = normalizePhoneNumber(body.to);
  if (!to) errors.add('to', 'INVALID_PHONE_NUMBER');
  let length = OTP_LENGTH.default;
  if (body.length !== undefined && body.length !== null) {
    if (isInteger(body.length) && body.length >= OTP_LENGTH.min && body.length <= OTP_LENGTH.max) length = body.length;
    else errors.add('length', 'INVALID_OTP_LENGTH');
  }
  let expirySeconds = OTP_EXPIRY.default;
  if (body.expiry !== undefined && body.expiry !== null) {
    if (isInteger(body.expiry) && body.expiry >= OTP_EXPIRY.min && body.expiry <= OTP_EXPIRY.max) expirySeconds = body.expiry;
    else errors.add('expiry', 'INVALID_OTP_EXPIRY');
  }
  let template: string | undefined;
  if (body.template !== undefined && body.template !== null) {
    if (typeof body.template !== 'string' || !body.template.includes(OTP_PLACEHOLDER)) {
      errors.add('template', 'INVALID_TEMPLATE');
    } else {
      template = body.template;
      // The 1600-character rule holds for the text the phone sends, code included.
      const rendered = smsCharacters(template.split(OTP_PLACEHOLDER).join('0'.repeat(length)));
      if (rendered > MAX_SMS_CHARACTERS) errors.add('template', 'MESSAGE_TOO_LONG');
    }
  }
  const metadata = checkMetadata(body.metadata, 'metadata', errors);
  const failover = checkFailover(body.failover, errors);
  const sim = checkSim(body.sim, 'sim', errors);
  let endUserKey: string | undefined;
  if (body.end_user_key !== undefined && body.end_user_key !== null) {
    const key = body.end_user_key;
    if (typeof key !== 'string' || key.trim() === '' || key.length > END_USER_KEY_MAX || !isStorableText(key)) {
      errors.add('end_user_key', 'VALIDATION_ERROR', `Le champ end_user_key doit être une chaîne de 1 à ${END_USER_KEY_MAX} caractères.`);
    } else endUserKey = key;
  }
  let fallbackAfterSeconds: number | undefined;
  if (body.fallback_after !== undefined && body.fallback_after !== null) {
    const after = body.fallback_after;
    if (isInteger(after) && after >= FALLBACK_AFTER_MIN && after < expirySeconds) fallbackAfterSeconds = after;
    else
      errors.add(
        'fallback_after',
        'VALIDATION_ERROR',
        `Le champ fallback_after doit être un nombre entier de secondes d'au moins ${FALLBACK_AFTER_MIN}, inférieur à la durée de validité (expiry).`,
      );
  }
  errors.throwIfAny();
  return { to: to!, length, expirySeconds, template, metadata, failover, sim, endUserKey, fallbackAfterSeconds };
}

/** POST /v1/sms/verify-otp: otp_id and code, both non-empty strings. */
export function parseVerifyOtpRequest(body: Record<string, unknown>): VerifyOtpRequest {
  const errors = new FieldErrors();
  const required = (field: 'otp_id' | 'code'): string => {
    const value = body[field];
    if (typeof value === 'string' && value.trim() !== '' && value.length <= 100) return value.trim();
    errors.add(field, 'VALIDATION_ERROR', `Le champ ${field} est obligatoire (une chaîne de caractères).`);
    return '';
  };
  const otpId = required('otp_id');
  const code = required('code');
  errors.throwIfAny();
  return { otpId, code };
}
