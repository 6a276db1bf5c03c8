import { isEnvelope, isWellFormedEnvelope } from '@smsgw/e2e-envelope';
import type { FieldErrors } from './send-request';

/**
 * The longest envelope accepted: the envelope of 1,600 characters of four UTF-8 bytes each (the
 * plain text's limit, which the phone checks after it decrypts), with its header.
 */
export const MAX_ENVELOPE_CHARACTERS = 8_800;

/** `encrypted`: a boolean; absent or null: the default given (false, or the request's for a personalised message). */
export function checkEncrypted(value: unknown, field: string, errors: FieldErrors, byDefault = false): boolean {
  if (value === undefined || value === null) return byDefault;
  if (typeof value !== 'boolean') {
    errors.add(field, 'VALIDATION_ERROR', `Le champ ${field} doit être un booléen (true ou false).`);
    return byDefault;
  }
  return value;
}

/**
 * The text of an encrypted message is an envelope (docs/api/encryption.md), checked for its shape
 * only: the platform cannot open it. A clear text never has the envelope's prefix, so that the
 * phone never takes a clear text for an envelope (or the reverse).
 */
export function checkEnvelopeField(text: string, field: string, encrypted: boolean, errors: FieldErrors): void {
  if (encrypted) {
    if (text.length > MAX_ENVELOPE_CHARACTERS) errors.add(field, 'MESSAGE_TOO_LONG');
    else if (!isWellFormedEnvelope(text))
      errors.add(
        field,
        'VALIDATION_ERROR',
        `Le champ ${field} doit être une enveloppe chiffrée ($smsgw-e2e$v1$…) quand encrypted vaut true.`,
      );
  } else if (isEnvelope(text)) {
    errors.add(field, 'VALIDATION_ERROR', `Le champ ${field} est une enveloppe chiffrée : indiquez encrypted: true.`);
  }
}
