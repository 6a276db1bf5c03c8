import { AppError } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import { HEALTH_FIELDS, type HealthField } from './sim-health.use-case';
import type { Upstreams } from './upstreams';

/** The form of the settings for all phones: the offline warning's delay in minutes (0: none) and the SIM health thresholds. */
export type PhoneFleetForm = Record<HealthField | 'offline_alert_minutes', string>;

export const PHONE_FLEET_FIELDS = ['offline_alert_minutes', ...HEALTH_FIELDS] as const;

const camel = (name: HealthField) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The account's settings for all its phones (the hub's defaults where it saved none). */
export async function phoneFleetSettings(up: Upstreams, clientId: string): Promise<devicehub.FleetSettings__Output> {
  return up.devices.getFleetSettings({ clientId });
}

/** The form's values from the settings: the delay in minutes (a fraction for a delay that is not whole minutes). */
export function phoneFleetForm(s: devicehub.FleetSettings__Output): PhoneFleetForm {
  const h = s.simHealth;
  return {
    offline_alert_minutes: String(Math.round((s.offlineAlertSeconds / 60) * 100) / 100),
    consecutive_failures: String(h?.consecutiveFailures ?? 0),
    failure_ratio: String(h?.failureRatio ?? 0),
    window: String(h?.window ?? 0),
    min_sample: String(h?.minSample ?? 0),
    cool_down_seconds: String(h?.coolDownSeconds ?? 0),
  };
}

/**
 * Stores the settings for all phones as typed: the delay is minutes (a decimal point allowed,
 * 0 for no warning), the thresholds whole numbers; the hub checks the bounds. The error to show,
 * or undefined once saved.
 */
export async function savePhoneFleetSettings(up: Upstreams, clientId: string, form: PhoneFleetForm): Promise<string | undefined> {
  const minutes = form.offline_alert_minutes.trim();
  if (!/^\d{1,6}(\.\d{1,2})?$/.test(minutes)) return 'The offline delay is a number of minutes (0: no warning).';
  const bad = HEALTH_FIELDS.filter((f) => !/^\d{1,9}$/.test(form[f].trim()));
  if (bad.length > 0) return `Whole numbers only: ${bad.join(', ')}.`;
  const simHealth = Object.fromEntries(HEALTH_FIELDS.map((f) => [camel(f), Number(form[f].trim())]));
  try {
    await up.devices.setFleetSettings({ clientId, offlineAlertSeconds: Math.round(Number(minutes) * 60), simHealth });
  } catch (err) {
    if (!(err instanceof AppError) || err.httpStatus !== 400) throw err;
    const fields = (err.details ?? []).map((d) => (d.field === 'offline_alert_seconds' ? 'offline delay (at most 7 days)' : d.field));
    return `Out of bounds: ${fields.filter(Boolean).join(', ') || err.message}. Nothing was changed.`;
  }
  return undefined;
}
