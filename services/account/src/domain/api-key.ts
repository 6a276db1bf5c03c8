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
