/**
 * What Postgres cannot store in `text` or `jsonb`: the character U+0000, and
 * UTF-16 surrogates that are not half of a pair (JSON may carry `\ud800`, but
 * it is no Unicode character, so it has no UTF-8 form). Such input is refused
 * before it reaches a statement, where it would fail every row of it.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is what this refuses
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** Every key and every string of a JSON value (at any depth) is storable. */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (value && typeof value === 'object') {
    return Object.entries(value).every(([key, v]) => isStorableText(key) && isStorableJson(v));
  }
  return true;
}
