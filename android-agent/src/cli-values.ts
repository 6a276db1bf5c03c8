// Small readers of command-line and environment values, shared by the option parsers.
import { UsageError } from './errors';

/** A share of report frames to lose, 0 to 1; unset or empty: none. */
export function ratio(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const share = Number(value.trim());
  if (!/^\d*\.?\d+$/.test(value.trim()) || share < 0 || share > 1) {
    throw new UsageError(`--sim-drop-reports (or SMSGW_AGENT_SIM_DROP_REPORTS) takes a share from 0 to 1, not ${JSON.stringify(value)}`);
  }
  return share;
}

/** A whole number of milliseconds above 0; unset or empty: the default. */
export function positiveMs(value: string | undefined, flag: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) === 0) throw new UsageError(`${flag} takes a whole number of milliseconds above 0`);
  return Number(value);
}

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
