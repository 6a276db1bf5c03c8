import { AppError, modeToProto } from '@smsgw/platform';
import type { otp } from '@smsgw/proto';
import type { Mode, Upstreams } from './upstreams';

/** The OTP page: the statistics of a period, the holds of the pumping guard, its settings. */
export interface OtpOverview {
  stats: otp.GetOtpStatsResponse__Output;
  holds: otp.Hold__Output[];
  guard: otp.GuardSettings__Output;
}

/** The last `days` UTC days, today included (as the statistics page counts). */
export async function otpOverview(up: Upstreams, clientId: string, mode: Mode, days: number): Promise<OtpOverview> {
  const to = new Date();
  const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()) - (days - 1) * 86_400_000);
  const [stats, { holds }, guard] = await Promise.all([
    up.otps.getOtpStats({ clientId, mode: modeToProto(mode), fromDate: from.toISOString(), toDate: to.toISOString(), deviceId: '' }),
    up.otps.listHolds({ clientId, mode: modeToProto(mode) }),
    up.otps.getGuardSettings({ clientId }),
  ]);
  return { stats, holds, guard };
}

/** The guard's form as typed: windows in minutes, conversions in percent, the checkbox 'on' or ''. */
export const GUARD_FIELDS = [
  'enabled',
  'window_minutes',
  'prefix_min_requests',
  'prefix_min_conversion',
  'country_min_requests',
  'country_min_conversion',
  'end_user_limit',
  'end_user_window_minutes',
] as const;
export type GuardField = (typeof GUARD_FIELDS)[number];
export type GuardForm = Record<GuardField, string>;

export function guardForm(g: otp.GuardSettings__Output): GuardForm {
  return {
    enabled: g.enabled ? 'on' : '',
    window_minutes: String(Math.round(g.windowSeconds / 60)),
    prefix_min_requests: String(g.prefixMinRequests),
    prefix_min_conversion: String(g.prefixMinConversion),
    country_min_requests: String(g.countryMinRequests),
    country_min_conversion: String(g.countryMinConversion),
    end_user_limit: String(g.endUserLimit),
    end_user_window_minutes: String(Math.round(g.endUserWindowSeconds / 60)),
  };
}

const whole = (text: string) => (/^\d{1,9}$/.test(text) ? Number(text) : NaN);

/** The settings' field names in the otp service, with the form's. */
const SERVICE_FIELDS: Record<string, GuardField> = {
  window_seconds: 'window_minutes',
  prefix_min_requests: 'prefix_min_requests',
  prefix_min_conversion: 'prefix_min_conversion',
  country_min_requests: 'country_min_requests',
  country_min_conversion: 'country_min_conversion',
  end_user_limit: 'end_user_limit',
  end_user_window_seconds: 'end_user_window_minutes',
};

/**
 * Stores the guard's settings as typed. The otp service checks their bounds; its VALIDATION_ERROR
 * comes back with the form's fields it names (a value that is not a whole number is refused here).
 */
export async function saveGuard(
  up: Upstreams,
  clientId: string,
  form: GuardForm,
): Promise<{ ok: true } | { ok: false; error: string; invalid: GuardField[] }> {
  const numbers = GUARD_FIELDS.filter((f) => f !== 'enabled').map((f) => [f, whole(form[f])] as const);
  const bad = numbers.filter(([, v]) => Number.isNaN(v)).map(([f]) => f);
  if (bad.length > 0) return { ok: false, error: 'Each threshold is a whole number.', invalid: bad };
  const n = Object.fromEntries(numbers) as Record<Exclude<GuardField, 'enabled'>, number>;
  try {
    await up.otps.setGuardSettings({
      clientId,
      enabled: form.enabled === 'on',
      windowSeconds: n.window_minutes * 60,
      prefixMinRequests: n.prefix_min_requests,
      prefixMinConversion: n.prefix_min_conversion,
      countryMinRequests: n.country_min_requests,
      countryMinConversion: n.country_min_conversion,
      endUserLimit: n.end_user_limit,
      endUserWindowSeconds: n.end_user_window_minutes * 60,
      defaults: false,
    });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
    const invalid = (err.details ?? []).map((d) => SERVICE_FIELDS[String(d.field)]).filter((f): f is GuardField => f !== undefined);
    return { ok: false, error: 'A threshold is out of its bounds: see the marked fields.', invalid };
  }
}

/** The owner releases a hold: OTPs there go again at once. False when it is not the client's. */
export async function releaseHold(up: Upstreams, clientId: string, holdId: string): Promise<boolean> {
  try {
    await up.otps.releaseHold({ clientId, holdId });
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'OTP_NOT_FOUND') return false;
    throw err;
  }
}
