/**
 * What Postgres cannot store in `text` or `jsonb`, refused before it reaches a statement (where it
 * would fail every row of it) with INVALID_CHARACTER: the character U+0000, and UTF-16 surrogates
 * that are not half of a pair (JSON may carry `\ud800`, which is no Unicode character and has no
 * UTF-8 form).
 */
// eslint-disable-next-line no-control-regex -- U+0000 is what this refuses
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

const EVERY_UNSTORABLE = new RegExp(UNSTORABLE.source, 'g');

/** `text` with each unstorable character replaced by U+FFFD: for what must be kept rather than refused (a received SMS). */
export function storableText(text: string): string {
  return text.replace(EVERY_UNSTORABLE, '\ufffd');
}

/** Every key and every string of a JSON value, at any depth, is storable. */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => isStorableText(k) && isStorableJson(v));
  return true;
}
