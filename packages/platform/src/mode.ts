/**
 * Live or test: which key a request came with, and so which data it sees. Every service keeps it
 * as `'live' | 'test'`; the contracts carry it as an enum (`Mode` of message, otp and webhook,
 * `KeyMode` of account, both with `..._TEST = 2`), forms and queries as the word `test`.
 */
export type Mode = 'live' | 'test';

/** From any of the contracts' enums, by name or number; anything but test (unspecified included) is live. */
export function modeFromProto(mode: string | number | null | undefined): Mode {
  return mode === 'MODE_TEST' || mode === 'KEY_MODE_TEST' || mode === 2 ? 'test' : 'live';
}

/** To the `Mode` enum of message, otp and webhook. */
export function modeToProto(mode: Mode): 'MODE_LIVE' | 'MODE_TEST' {
  return mode === 'test' ? 'MODE_TEST' : 'MODE_LIVE';
}

/** To the `KeyMode` enum of account. */
export function keyModeToProto(mode: Mode): 'KEY_MODE_LIVE' | 'KEY_MODE_TEST' {
  return mode === 'test' ? 'KEY_MODE_TEST' : 'KEY_MODE_LIVE';
}

/** From a form field or a query parameter: `test` is test, anything else (absent included) live. */
export function parseMode(value: unknown): Mode {
  return value === 'test' ? 'test' : 'live';
}
