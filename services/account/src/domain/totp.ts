import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** RFC 6238 with the parameters every authenticator app takes by default: HMAC-SHA1, 6 digits, 30 s steps. */
export const TOTP_STEP_SECONDS = 30;
const DIGITS = 6;
/** One step either side is accepted: a phone's clock a little off, a code typed as it changes. */
const DRIFT_STEPS = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: what authenticator apps read in an otpauth URI. */
export function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A new secret: 160 random bits, the size RFC 4226 recommends for HMAC-SHA1. */
export const newTotpSecret = (): Buffer => randomBytes(20);

/** The time step of a moment (RFC 6238's T). */
export const stepAt = (ms: number): number => Math.floor(ms / 1000 / TOTP_STEP_SECONDS);

/** The code of a step (RFC 4226's HOTP with the step as counter, dynamic truncation). */
export function codeAt(secret: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** DIGITS;
  return String(binary).padStart(DIGITS, '0');
}

/**
 * The step a typed code matches, within the drift and after `lastStep` (a code is taken once);
 * undefined when it matches none. Every candidate is compared, in constant time.
 */
export function matchingStep(secret: Buffer, typed: string, nowMs: number, lastStep: number): number | undefined {
  const code = typed.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = stepAt(nowMs);
  let found: number | undefined;
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    const same = timingSafeEqual(Buffer.from(codeAt(secret, step)), Buffer.from(code));
    if (same && step > lastStep && found === undefined) found = step;
  }
  return found;
}

/** The otpauth URI an authenticator app reads from the QR code. */
export function otpauthUri(secret: Buffer, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const params = new URLSearchParams({
    secret: base32(secret),
    issuer,
    algorithm: 'SHA1',
    digits: String(DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** Ten recovery codes of 10 characters (about 50 bits each), shown once; kept as SHA-256 hashes. */
export function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  return Array.from({ length: 10 }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code's hash, its dash and case not counting. */
export const recoveryCodeHash = (code: string): Buffer =>
  createHash('sha256')
    .update(code.replace(/[\s-]+/g, '').toLowerCase())
    .digest();
