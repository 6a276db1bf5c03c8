import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

/**
 * The end-to-end envelope, version 1 (docs/api/encryption.md):
 * `$smsgw-e2e$v1$scrypt$ln=14,r=8,p=1$<salt>$<nonce>$<ciphertext and tag>`, each binary field in
 * base64url without padding. The key is scrypt(passphrase, salt, 2^ln, r, p, 32 bytes); the cipher is
 * AES-256-GCM with the header (everything before the last `$`) as additional authenticated data.
 */
export const ENVELOPE_PREFIX = '$smsgw-e2e$v1$';
export const DEFAULT_KDF = Object.freeze({ ln: 14, r: 8, p: 1 });

const SALT_BYTES = 16;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
// Bounds a decryptor accepts, so that an envelope cannot make a phone spend unbounded memory or time.
const LIMITS = { ln: [10, 20], r: [1, 16], p: [1, 4] } as const;
const ENVELOPE_SHAPE =
  /^\$smsgw-e2e\$v1\$scrypt\$ln=([1-9][0-9]?),r=([1-9][0-9]?),p=([1-9])\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

export interface KdfParams {
  ln: number;
  r: number;
  p: number;
}

export interface SealOptions {
  kdf?: KdfParams;
  /** Fixed salt and nonce: for test vectors only; a real seal draws both at random. */
  salt?: Uint8Array;
  nonce?: Uint8Array;
}

/** The envelope does not open: wrong passphrase, altered or malformed envelope. */
export class DecryptionFailedError extends Error {
  override readonly name = 'DecryptionFailedError';
  readonly code = 'DECRYPTION_FAILED';
  constructor(readonly reason: string) {
    super(`the envelope does not open: ${reason}`);
  }
}

/** Whether a text has the envelope's prefix (it may still fail to open). */
export function isEnvelope(text: string): boolean {
  return text.startsWith(ENVELOPE_PREFIX);
}

/** Whether a text has the envelope's shape (fields and parameters); it says nothing of whether it opens. */
export function isWellFormedEnvelope(text: string): boolean {
  return ENVELOPE_SHAPE.test(text);
}

export function seal(plaintext: string, passphrase: string, options: SealOptions = {}): string {
  const kdf = options.kdf ?? DEFAULT_KDF;
  checkKdf(kdf);
  const salt = Buffer.from(options.salt ?? randomBytes(SALT_BYTES));
  const nonce = Buffer.from(options.nonce ?? randomBytes(NONCE_BYTES));
  if (salt.length !== SALT_BYTES || nonce.length !== NONCE_BYTES) throw new RangeError('salt is 16 bytes, nonce 12');
  const header = `${ENVELOPE_PREFIX}scrypt$ln=${kdf.ln},r=${kdf.r},p=${kdf.p}$${b64(salt)}$${b64(nonce)}`;
  const cipher = createCipheriv('aes-256-gcm', deriveKey(passphrase, salt, kdf), nonce);
  cipher.setAAD(Buffer.from(header, 'ascii'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${header}$${b64(body)}`;
}

export function open(envelope: string, passphrase: string): string {
  const match = ENVELOPE_SHAPE.exec(envelope);
  if (!match) throw new DecryptionFailedError(isEnvelope(envelope) ? 'malformed envelope' : 'not an envelope');
  const kdf = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (!withinLimits(kdf)) throw new DecryptionFailedError('key derivation parameters out of range');
  const salt = unb64(match[4]!);
  const nonce = unb64(match[5]!);
  const body = unb64(match[6]!);
  if (!salt || salt.length !== SALT_BYTES) throw new DecryptionFailedError('bad salt');
  if (!nonce || nonce.length !== NONCE_BYTES) throw new DecryptionFailedError('bad nonce');
  if (!body || body.length < TAG_BYTES) throw new DecryptionFailedError('bad ciphertext');
  const header = envelope.slice(0, envelope.lastIndexOf('$'));
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(passphrase, salt, kdf), nonce);
  decipher.setAAD(Buffer.from(header, 'ascii'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new DecryptionFailedError('authentication failed (wrong passphrase or altered envelope)');
  }
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(plain);
  } catch {
    throw new DecryptionFailedError('plain text is not UTF-8');
  }
}

function deriveKey(passphrase: string, salt: Buffer, kdf: KdfParams): Buffer {
  const n = 2 ** kdf.ln;
  return scryptSync(Buffer.from(passphrase, 'utf8'), salt, 32, {
    N: n,
    r: kdf.r,
    p: kdf.p,
    maxmem: 256 * n * kdf.r + 1024 * 1024,
  });
}

function withinLimits(kdf: KdfParams): boolean {
  return (['ln', 'r', 'p'] as const).every((k) => kdf[k] >= LIMITS[k][0] && kdf[k] <= LIMITS[k][1]);
}

function checkKdf(kdf: KdfParams): void {
  if (!withinLimits(kdf)) throw new RangeError('scrypt parameters out of range (ln 10-20, r 1-16, p 1-4)');
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** Canonical base64url only: a string that does not re-encode to itself is refused. */
function unb64(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return b64(bytes) === text ? bytes : undefined;
}
