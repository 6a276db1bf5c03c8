import {
  AppError,
  canonicalRange,
  isKeyScope,
  KEY_SCOPES,
  MAX_KEY_DAILY_QUOTA,
  MAX_KEY_IP_RANGES,
  type ErrorDetail,
  type KeyScope,
} from '@smsgw/platform';

export interface KeyLimits {
  /** Empty: every scope. */
  scopes: KeyScope[];
  /** Canonical CIDR ranges; empty: any address. */
  ipRanges: string[];
  /** SMS per UTC day; 0: no quota. */
  dailyQuota: number;
}

/**
 * The limits an owner asked for, checked: scopes of the platform's list (de-duplicated, in the
 * list's order), ranges in their canonical form (de-duplicated), a quota within bounds; or
 * VALIDATION_ERROR naming each field that fails.
 */
export function checkKeyLimits(input: { scopes: readonly string[]; ipRanges: readonly string[]; dailyQuota: number }): KeyLimits {
  const details: ErrorDetail[] = [];
  const asked = input.scopes.map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = asked.filter((s) => !isKeyScope(s));
  if (unknown.length > 0) {
    details.push({
      field: 'scopes',
      code: 'VALIDATION_ERROR',
      message: `Autorisations inconnues : ${unknown.slice(0, 5).join(', ')} (${KEY_SCOPES.join(', ')}).`,
    });
  }
  const scopes = KEY_SCOPES.filter((s) => asked.includes(s));
  const typed = input.ipRanges.map((r) => r.trim()).filter(Boolean);
  const canonical = typed.map((r) => ({ typed: r, range: canonicalRange(r) }));
  const malformed = canonical.filter((r) => r.range === undefined).map((r) => r.typed);
  const ipRanges = [...new Set(canonical.flatMap((r) => (r.range ? [r.range] : [])))];
  if (malformed.length > 0) {
    details.push({
      field: 'ip_ranges',
      code: 'VALIDATION_ERROR',
      message: `Plages d'adresses invalides : ${malformed.slice(0, 3).join(', ')} (par exemple 203.0.113.0/24 ou 2001:db8::/32).`,
    });
  } else if (ipRanges.length > MAX_KEY_IP_RANGES) {
    details.push({ field: 'ip_ranges', code: 'VALIDATION_ERROR', message: `${MAX_KEY_IP_RANGES} plages d'adresses au plus.` });
  }
  if (!Number.isInteger(input.dailyQuota) || input.dailyQuota < 0 || input.dailyQuota > MAX_KEY_DAILY_QUOTA) {
    details.push({
      field: 'daily_quota',
      code: 'VALIDATION_ERROR',
      message: `Le quota journalier doit être un entier entre 0 (aucun) et ${MAX_KEY_DAILY_QUOTA}.`,
    });
  }
  if (details.length === 1) throw new AppError('VALIDATION_ERROR', { message: details[0]!.message, details });
  if (details.length > 1) throw new AppError('VALIDATION_ERROR', { details });
  return { scopes, ipRanges, dailyQuota: input.dailyQuota };
}
