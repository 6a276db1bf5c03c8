import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export const MIN_LENGTH = 4;
export const MAX_LENGTH = 8;
export const DEFAULT_LENGTH = 6;

/**
 * The code every OTP of a test key gets: the first `length` digits of
 * 12345678 (1234 for 4 digits, 123456 for 6), so that a client's CI can run
 * its verify flow without a phone. Live keys never get it on purpose.
 */
export const TEST_CODE_DIGITS = '12345678';

export function testCode(length: number): string {
  return TEST_CODE_DIGITS.slice(0, length);
}

/**
 * A code of `length` digits from the system's CSPRNG, uniform over all
 * 10^length codes: randomInt draws by rejection sampling, so no modulo bias.
 */
export function randomCode(length: number): string {
  return String(randomInt(0, 10 ** length)).padStart(length, '0');
}

/** What is stored of a code: HMAC-SHA256 under the configured key, bound to its OTP. */
export function hashCode(key: Buffer, otpId: string, code: string): Buffer {
  return createHmac('sha256', key).update(`${otpId}:${code}`, 'utf8').digest();
}

/** Whether `candidate` is the OTP's code, comparing the keyed hashes in constant time. */
export function codeMatches(key: Buffer, otpId: string, candidate: string, stored: Buffer): boolean {
  const hash = hashCode(key, otpId, candidate);
  return hash.length === stored.length && timingSafeEqual(hash, stored);
}

/** A phone number as it appears in Redis keys: a keyed hash, never the number. */
export function numberKey(key: Buffer, number: string): string {
  return createHmac('sha256', key).update(`number:${number}`, 'utf8').digest('base64url').slice(0, 32);
}

/** A destination prefix as the guard's Redis keys and the OTP record name it: a keyed hash, never the digits. */
export function prefixKey(key: Buffer, prefix: string): string {
  return createHmac('sha256', key).update(`prefix:${prefix}`, 'utf8').digest('base64url').slice(0, 32);
}

/** An end-user key (an IP address, an account id) as it appears in Redis keys: a keyed hash. */
export function endUserKey(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(`end-user:${value}`, 'utf8').digest('base64url').slice(0, 32);
}
