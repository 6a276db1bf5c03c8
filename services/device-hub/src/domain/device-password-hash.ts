import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { secretMatches } from '@smsgw/platform';

/**
 * Device passwords have about 79 bits and can be used again, so they get a slow salted hash:
 * scrypt with N = 2^15, r = 8, p = 1 (32 MiB, some 50 ms on one core), a 16-byte salt and a
 * 32-byte key. The stored value names its parameters, `scrypt$15$8$1$<salt>$<key>` (base64), so
 * they can be raised later without voiding the hashes already stored. Hashes stored before (a bare
 * 32-byte SHA-256) still verify and are replaced at the next successful pairing.
 */
export const DEVICE_PASSWORD_SCRYPT = { log2N: 15, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;

const PREFIX = 'scrypt$';

function derive(password: string, salt: Buffer, keyBytes: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keyBytes, options, (err, key) => (err ? reject(err) : resolve(key))));
}

const scryptOptions = (log2N: number, r: number, p: number): ScryptOptions => ({
  N: 2 ** log2N,
  r,
  p,
  // Node's default ceiling (32 MiB) is exactly 128 * N * r at N = 2^15: give it room.
  maxmem: 2 * 128 * 2 ** log2N * r,
});

/** The stored form of a normalized device password. */
export async function hashDevicePassword(normalized: string): Promise<Buffer> {
  const { log2N, r, p, saltBytes, keyBytes } = DEVICE_PASSWORD_SCRYPT;
  const salt = randomBytes(saltBytes);
  const key = await derive(normalized, salt, keyBytes, scryptOptions(log2N, r, p));
  return Buffer.from(`${PREFIX}${log2N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`, 'utf8');
}

/** Whether a stored hash is of the current kind and parameters (otherwise: re-hash after a right password). */
export function isCurrentDevicePasswordHash(stored: Buffer): boolean {
  const { log2N, r, p } = DEVICE_PASSWORD_SCRYPT;
  return stored.toString('utf8').startsWith(`${PREFIX}${log2N}$${r}$${p}$`);
}

/** Whether `normalized` is the password of this stored hash: scrypt, or the SHA-256 of before. None (revoked) never matches. */
export async function devicePasswordMatches(normalized: string, stored: Buffer | null): Promise<boolean> {
  if (!stored || stored.length === 0) return false;
  const text = stored.toString('utf8');
  if (!text.startsWith(PREFIX)) return secretMatches(normalized, stored);
  const [log2N, r, p, salt, key] = text.slice(PREFIX.length).split('$');
  if (!log2N || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(normalized, Buffer.from(salt, 'base64'), expected.length, scryptOptions(Number(log2N), Number(r), Number(p)));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** How device passwords are hashed and checked: scrypt here; a test may pass a cheaper one. */
export interface DevicePasswordHasher {
  hash(normalized: string): Promise<Buffer>;
  matches(normalized: string, stored: Buffer | null): Promise<boolean>;
  isCurrent(stored: Buffer): boolean;
}

export const scryptDevicePasswords: DevicePasswordHasher = {
  hash: hashDevicePassword,
  matches: devicePasswordMatches,
  isCurrent: isCurrentDevicePasswordHash,
};
