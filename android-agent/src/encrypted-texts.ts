// Protocol 8 (PROTOCOL.md): end-to-end encrypted texts. With a passphrase (--passphrase-file) the
// agent opens each envelope right before it sends (the outbox keeps the envelope, so the plain text
// is never at rest) and seals each received SMS before it writes it to its inbox. Without one, an
// envelope fails DECRYPTION_FAILED, not sent, so that another phone may take it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DecryptionFailedError, isEnvelope, open, seal } from '@smsgw/e2e-envelope';
import { UsageError } from './errors';
import type { Arrival } from './inbox';
import type { ReceivedKeyword, Sms, SmsError } from './protocol';

/** The longest plain text, as for a clear text sent through the API (code points). */
export const MAX_PLAIN_CHARACTERS = 1600;

/** The SMS to hand to the driver (its text opened), or the failure to report instead. */
export function openForSending(sms: Sms, passphrase: string | undefined): { sms: Sms } | { error: SmsError } {
  if (!isEnvelope(sms.text)) return { sms };
  if (passphrase === undefined) return { error: { code: 'DECRYPTION_FAILED', message: 'no passphrase on this phone' } };
  let text: string;
  try {
    text = open(sms.text, passphrase);
  } catch (error) {
    if (error instanceof DecryptionFailedError) return { error: { code: 'DECRYPTION_FAILED', message: error.reason } };
    throw error;
  }
  if (Array.from(text).length > MAX_PLAIN_CHARACTERS) {
    return { error: { code: 'MESSAGE_TOO_LONG', message: `the plain text is over ${MAX_PLAIN_CHARACTERS} characters` } };
  }
  return { sms: { ...sms, text } };
}

/**
 * The platform's default keywords (docs/api/opt-outs.md): a client's own lists are the platform's,
 * which cannot read an encrypted text, so the phone matches these.
 */
const OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'ARRET'];
const START_KEYWORDS = ['START'];

/** As the message service folds a received text: accents removed, upper case, one final `.` or `!` dropped, single spaces. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toUpperCase().replace(/\s+/gu, ' ').trim();
}

export function keywordOf(text: string): ReceivedKeyword | undefined {
  const normalised = fold(fold(text).replace(/[.!]$/u, ''));
  if (OPT_OUT_KEYWORDS.includes(normalised)) return { action: 'add', keyword: normalised };
  if (START_KEYWORDS.includes(normalised)) return { action: 'remove', keyword: normalised };
  return undefined;
}

/** A received SMS as it is kept and leaves the phone: with a passphrase, its text sealed and its keyword (if any) beside it. */
export function sealArrival(arrival: Arrival, passphrase: string | undefined): Arrival {
  if (passphrase === undefined) return arrival;
  const keyword = keywordOf(arrival.text);
  return { ...arrival, text: seal(arrival.text, passphrase), ...(keyword ? { keyword } : {}) };
}

/** The passphrase of --passphrase-file: its first line, without the line end; undefined without the option. */
export async function passphraseOf(file: string | undefined): Promise<string | undefined> {
  if (file === undefined) return undefined;
  let passphrase: string;
  try {
    passphrase = (await readFile(path.resolve(file), 'utf8')).split(/\r?\n/)[0] ?? '';
  } catch (error) {
    throw new UsageError(`--passphrase-file: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!passphrase) throw new UsageError('--passphrase-file: the first line of the file is empty');
  return passphrase;
}
