import { checkFailover, checkMetadata, checkSim, FieldErrors, MAX_MESSAGE_CHARACTERS, normalizePhoneNumber } from './send-request';

export const OTP_PLACEHOLDER = '{{code}}';
export const OTP_LENGTH = { min: 4, max: 8, default: 6 };
/** Seconds: long enough to receive an SMS and type its code, at most the hour of the per-number limit. */
export const OTP_EXPIRY = { min: 30, max: 3600, default: 300 };

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
      const rendered = Array.from(template.split(OTP_PLACEHOLDER).join('0'.repeat(length))).length;
      if (rendered > MAX_MESSAGE_CHARACTERS) errors.add('template', 'MESSAGE_TOO_LONG');
    }
  }
  const metadata = checkMetadata(body.metadata, 'metadata', errors);
  const failover = checkFailover(body.failover, errors);
  const sim = checkSim(body.sim, 'sim', errors);
  errors.throwIfAny();
  return { to: to!, length, expirySeconds, template, metadata, failover, sim };
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
