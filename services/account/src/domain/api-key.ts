import { AppError, issueSecret, newId, randomAlphanumeric } from '@smsgw/platform';

/** API keys read `sgw_live_<40 alphanumerics>` or `sgw_test_<40 alphanumerics>`. */
export type KeyMode = 'live' | 'test';

export const KEY_PREFIX: Record<KeyMode, string> = { live: 'sgw_live_', test: 'sgw_test_' };

export function keyModeOf(apiKey: string): KeyMode | undefined {
  if (apiKey.startsWith(KEY_PREFIX.live)) return 'live';
  if (apiKey.startsWith(KEY_PREFIX.test)) return 'test';
  return undefined;
}

export const CLIENT_ID_PATTERN = /^client_[0-9]{1,40}$/;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_PATTERN.test(value);
}

/** An e-mail an account may have, or INVALID_EMAIL. */
export function checkEmail(email: string): void {
  if (!isEmail(email)) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'email', code: 'INVALID_EMAIL', message: 'Adresse e-mail invalide.' }] });
  }
}

/** A new key of a client: what the client is shown once (`plain`), and what is stored (its lookup and hash). */
export interface IssuedKey {
  plain: string;
  row: NewKeyRow;
}

/** What is stored of a new key. */
export interface NewKeyRow {
  keyId: string;
  clientId: string;
  mode: KeyMode;
  lookup: string;
  hash: Buffer;
  label: string;
  /** Empty: every scope, any address; 0: no quota. */
  scopes: string[];
  ipRanges: string[];
  dailyQuota: number;
  /** The dashboard user who made it; undefined: the operator tool. */
  createdBy?: string;
}

export function issueApiKey(
  clientId: string,
  mode: KeyMode,
  label: string,
  extra: { scopes?: string[]; ipRanges?: string[]; dailyQuota?: number; createdBy?: string } = {},
): IssuedKey {
  const secret = issueSecret(KEY_PREFIX[mode]);
  return {
    plain: secret.plain,
    row: {
      keyId: newId('key'),
      clientId,
      mode,
      lookup: secret.lookup,
      hash: secret.hash,
      label,
      scopes: extra.scopes ?? [],
      ipRanges: extra.ipRanges ?? [],
      dailyQuota: extra.dailyQuota ?? 0,
      createdBy: extra.createdBy,
    },
  };
}

/** A client's secret for signing its webhooks. */
export const newSigningSecret = () => `whsec_${randomAlphanumeric(40)}`;
