import { readFileSync } from 'node:fs';
import { DecryptionFailedError, isEnvelope, openEnvelope, seal } from '@smsgw/client';

/**
 * The end-to-end passphrase (docs/api/encryption.md): the first line of a file, never an argument
 * (it would stay in the shell's history and in ps). Undefined without --passphrase-file.
 */
export function passphraseOf(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const passphrase = readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '';
  if (!passphrase) throw new Error(`--passphrase-file: the first line of ${file} is empty`);
  return passphrase;
}

/** A text as the command shows it: opened when it is an envelope and a passphrase is given. */
export function readable(text: string, passphrase: string | undefined): string {
  if (passphrase === undefined || !isEnvelope(text)) return text;
  try {
    return openEnvelope(text, passphrase);
  } catch (error) {
    if (error instanceof DecryptionFailedError) return '[does not open with this passphrase]';
    throw error;
  }
}

/** The message to send: sealed when a passphrase is given. */
export function sealed(text: string, passphrase: string | undefined): string {
  return passphrase === undefined ? text : seal(text, passphrase);
}
