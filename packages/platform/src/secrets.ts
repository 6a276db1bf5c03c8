import { createHash, timingSafeEqual } from 'node:crypto';
import { randomAlphanumeric } from './ids';

/**
 * A bearer secret (API key, device token) made of a public prefix, a lookup
 * part used to find its row, and the rest. Only the SHA-256 of the whole
 * secret is stored: the secret has ~238 bits of entropy, so a slow hash adds
 * nothing, and verification is a constant-time comparison of digests.
 */
export interface IssuedSecret {
  plain: string;
  lookup: string;
  hash: Buffer;
}

const LOOKUP_LENGTH = 12;
const BODY_LENGTH = 40;

export function issueSecret(prefix: string): IssuedSecret {
  const body = randomAlphanumeric(BODY_LENGTH);
  const plain = `${prefix}${body}`;
  return { plain, lookup: body.slice(0, LOOKUP_LENGTH), hash: hashSecret(plain) };
}

/** The lookup part of a well-formed secret with this prefix, or undefined. */
export function secretLookup(prefix: string, plain: string): string | undefined {
  if (!plain.startsWith(prefix)) return undefined;
  const body = plain.slice(prefix.length);
  return new RegExp(`^[A-Za-z0-9]{${BODY_LENGTH}}$`).test(body) ? body.slice(0, LOOKUP_LENGTH) : undefined;
}

export function hashSecret(plain: string): Buffer {
  return createHash('sha256').update(plain, 'utf8').digest();
}

export function secretMatches(plain: string, storedHash: Buffer): boolean {
  const candidate = hashSecret(plain);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}
