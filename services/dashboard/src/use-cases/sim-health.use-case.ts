import { AppError } from '@smsgw/platform';
import type { Upstreams } from './upstreams';

/** The SIM health form's fields, as the page names them (and the hub's proto, in camel case). */
export const HEALTH_FIELDS = ['consecutive_failures', 'failure_ratio', 'window', 'min_sample', 'cool_down_seconds'] as const;
export type HealthField = (typeof HEALTH_FIELDS)[number];
export type HealthForm = Record<HealthField, string>;

const camel = (name: HealthField) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Stores a phone's SIM health thresholds as typed: a field that is not a whole number is refused
 * here, the hub checks the bounds (VALIDATION_ERROR). The error to show, or undefined once saved.
 */
export async function saveSimHealth(up: Upstreams, clientId: string, deviceId: string, form: HealthForm): Promise<string | undefined> {
  const bad = HEALTH_FIELDS.filter((f) => !/^\d{1,9}$/.test(form[f].trim()));
  if (bad.length > 0) return `Whole numbers only: ${bad.join(', ')}.`;
  const settings = Object.fromEntries(HEALTH_FIELDS.map((f) => [camel(f), Number(form[f].trim())]));
  try {
    await up.devices.setSimHealth({ clientId, deviceId, settings });
  } catch (err) {
    if (!(err instanceof AppError) || err.httpStatus !== 400) throw err;
    const fields = (err.details ?? []).map((d) => d.field).filter(Boolean);
    return `Out of bounds: ${fields.join(', ') || err.message}. Nothing was changed.`;
  }
  return undefined;
}

/** Makes the phone follow its account's SIM health thresholds again (those of Phones, settings for all phones). */
export async function followAccountSimHealth(up: Upstreams, clientId: string, deviceId: string): Promise<void> {
  await up.devices.setSimHealth({ clientId, deviceId, followAccount: true });
}

/** Releases the phone's SIM of `slot` by hand (another client's phone: NOT_FOUND). */
export async function releaseSim(up: Upstreams, clientId: string, deviceId: string, slot: number): Promise<void> {
  await up.devices.releaseSim({ clientId, deviceId, slot });
}
