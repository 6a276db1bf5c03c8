import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The full text of an OTP's SMS, sealed with AES-256-GCM under the
 * configured key, bound to its message (associated data): a sealed text
 * copied onto another row does not open. Layout: iv (12) | tag (16) | data.
 */
export function sealText(key: Buffer, messageId: string, text: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.subarray(0, 32), iv);
  cipher.setAAD(Buffer.from(messageId, 'utf8'));
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

/** Opens what `sealText` sealed for this message; throws if the key, the message or the bytes differ. */
export function openText(key: Buffer, messageId: string, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key.subarray(0, 32), sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(messageId, 'utf8'));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
