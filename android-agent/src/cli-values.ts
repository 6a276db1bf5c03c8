// Small readers of command-line and environment values, shared by the option parsers.
import { UsageError } from './errors';

export function milliseconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a whole number of milliseconds`);
  return Number(value);
}

/** An on/off environment variable: unset or empty, 0, false, no, off; 1, true, yes, on. */
export function envFlag(value: string | undefined, name: string): boolean {
  const normalized = (value ?? '').trim().toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(normalized)) return false;
  if (['1', 'true', 'yes', 'on'].includes(normalized)) return true;
  throw new UsageError(`${name} must be 1 or 0 (or true or false), not ${JSON.stringify(value)}`);
}
