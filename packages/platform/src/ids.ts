import { randomBytes, randomInt } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

export type IdPrefix = 'msg' | 'batch' | 'otp' | 'evt' | 'device' | 'key' | 'tok' | 'whe' | 'dlv' | 'tmr';

/** Time-sortable identifier with the specification's prefix, e.g. `msg_01JD3...`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}

/** `client_` then digits, as the specification requires: milliseconds then 6 random digits. */
export function newClientId(): string {
  return `client_${Date.now()}${String(randomInt(0, 1_000_000)).padStart(6, '0')}`;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A uniformly random alphanumeric string (rejection sampling, no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export function randomDigits(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(0, 10));
  return out;
}
