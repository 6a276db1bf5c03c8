import { AppError, NO_DEVICE_LIMITS } from '@smsgw/platform';
import type { devicehub, message } from '@smsgw/proto';
import type { Upstreams } from './upstreams';

/** The limits form's fields, named as the hub's `DeviceLimits` in snake case. */
export const LIMIT_FIELDS = [
  'per_minute',
  'per_hour',
  'per_day',
  'min_interval_ms',
  'max_interval_ms',
  'sending_hours_start',
  'sending_hours_end',
  'time_zone',
] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/** The form as typed (given back when refused). */
export type LimitsForm = Record<LimitField, string>;
/** What is wrong, per field; `''` holds what belongs to no field. */
export type LimitErrors = Partial<Record<LimitField | '', string>>;

const COUNT_FIELDS = ['per_minute', 'per_hour', 'per_day', 'min_interval_ms', 'max_interval_ms'] as const;
const INT32_MAX = 2_147_483_647;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

const COUNT_ERROR: Record<(typeof COUNT_FIELDS)[number], string> = {
  per_minute: 'The limit per minute is a whole number of SMS, 0 for none.',
  per_hour: 'The limit per hour is a whole number of SMS, 0 for none.',
  per_day: 'The limit per 24 hours is a whole number of SMS, 0 for none.',
  min_interval_ms: 'The shortest pause is a whole number of milliseconds, 0 for the default.',
  max_interval_ms: 'The longest pause is a whole number of milliseconds, 0 for the default.',
};

/** The form of a phone's current limits. */
export function limitsForm(limits: devicehub.DeviceLimits__Output | null): LimitsForm {
  const l = limits ?? NO_DEVICE_LIMITS;
  const n = (v: number) => (v ? String(v) : '');
  return {
    per_minute: n(l.perMinute),
    per_hour: n(l.perHour),
    per_day: n(l.perDay),
    min_interval_ms: n(l.minIntervalMs),
    max_interval_ms: n(l.maxIntervalMs),
    sending_hours_start: l.sendingHoursStart,
    sending_hours_end: l.sendingHoursEnd,
    time_zone: l.timeZone,
  };
}

/** Whether the runtime knows this IANA time zone. */
export function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The form checked for what a person can get wrong by typing (a number, HH:MM, both ends of the
 * hours, a time zone); the hub checks the rest (a limit per minute above the one per hour...) and
 * its refusals come back per field (`hubErrors`). Empty numbers are 0: none, or the default pause.
 */
export function parseLimitsForm(form: LimitsForm): { ok: true; value: devicehub.DeviceLimits } | { ok: false; errors: LimitErrors } {
  const errors: LimitErrors = {};
  const n: Record<string, number> = {};
  for (const name of COUNT_FIELDS) {
    const text = form[name];
    n[name] = text === '' ? 0 : /^\d{1,10}$/.test(text) && Number(text) <= INT32_MAX ? Number(text) : NaN;
    if (Number.isNaN(n[name])) errors[name] = COUNT_ERROR[name];
  }
  if (!errors.min_interval_ms && !errors.max_interval_ms && n.max_interval_ms! > 0 && n.min_interval_ms! > n.max_interval_ms!)
    errors.max_interval_ms = 'The longest pause cannot be shorter than the shortest one.';
  const [start, end] = [form.sending_hours_start, form.sending_hours_end];
  for (const [name, value] of [
    ['sending_hours_start', start],
    ['sending_hours_end', end],
  ] as const) {
    if (value !== '' && !HHMM.test(value)) errors[name] = 'Sending hours are written HH:MM, from 00:00 to 23:59.';
  }
  if (!errors.sending_hours_start && !errors.sending_hours_end && (start === '') !== (end === ''))
    errors[start === '' ? 'sending_hours_start' : 'sending_hours_end'] = 'Give both ends of the sending hours, or neither for any time.';
  if (!errors.sending_hours_start && !errors.sending_hours_end && start !== '' && start === end)
    errors.sending_hours_end = 'The sending hours end when they start: give different times, or none for any time.';
  if (form.time_zone !== '' && !knownTimeZone(form.time_zone))
    errors.time_zone = 'Unknown time zone: use an IANA name such as Europe/Paris, or empty for UTC.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      perMinute: n.per_minute,
      perHour: n.per_hour,
      perDay: n.per_day,
      minIntervalMs: n.min_interval_ms,
      maxIntervalMs: n.max_interval_ms,
      sendingHoursStart: start,
      sendingHoursEnd: end,
      timeZone: form.time_zone,
    },
  };
}

/** A field as the hub may name it (`limits.perMinute`, `per_minute`, `sending_hours`...) as the form's. */
function formField(name: string | undefined): LimitField | undefined {
  if (!name) return undefined;
  const last = name
    .split('.')
    .pop()!
    .replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if ((LIMIT_FIELDS as readonly string[]).includes(last)) return last as LimitField;
  if (last === 'sending_hours' || last === 'hours') return 'sending_hours_start';
  return undefined;
}

/** A refusal of the hub (INVALID_ARGUMENT: its validation), per field; undefined for any other error. */
export function hubErrors(err: unknown): LimitErrors | undefined {
  if (!(err instanceof AppError) || err.httpStatus !== 400) return undefined;
  const errors: LimitErrors = {};
  for (const d of err.details ?? []) {
    const key = formField(d.field) ?? '';
    const text = d.message || err.message;
    errors[key] = errors[key] ? `${errors[key]} ${text}` : text;
  }
  if (Object.keys(errors).length === 0) errors[''] = err.message;
  return errors;
}

/** A phone of the client (NOT_FOUND for another client's: the hub answers only for the client's own). */
function getPhone(up: Upstreams, clientId: string, deviceId: string): Promise<devicehub.Device__Output> {
  return up.devices.getDevice({ clientId, deviceId });
}

/** A phone's page: the phone (NOT_FOUND for another client's) and the messages queued on it. */
export interface PhoneDetail {
  device: devicehub.Device__Output;
  queued: number;
  /** What the phone's digests repaired (protocol 7); undefined: none. */
  repairs?: message.DeviceRepairs__Output;
  /** Its telemetry, log and settings' state (issue 38); absent when the hub could not say. */
  health?: devicehub.DeviceHealth__Output;
}

export async function phoneDetail(up: Upstreams, clientId: string, deviceId: string): Promise<PhoneDetail> {
  const device = await getPhone(up, clientId, deviceId);
  const [{ depths, repairs }, health] = await Promise.all([
    up.messages.queueDepths({ deviceIds: [device.deviceId], withRepairs: true }),
    // Its health is a part of the page: the page shows without it when the hub cannot say.
    up.devices.getDeviceHealth({ clientId, deviceId: device.deviceId }).catch(() => undefined),
  ]);
  const repaired = repairs[device.deviceId];
  return { device, queued: depths[device.deviceId] ?? 0, ...(repaired ? { repairs: repaired } : {}), ...(health ? { health } : {}) };
}

/** Saved, or refused per field with the phone's page to show the form again on. */
export type LimitsSaved = { ok: true } | { ok: false; errors: LimitErrors; phone: PhoneDetail };

/**
 * Stores the phone's limits (all of them) as typed: another client's phone is refused (NOT_FOUND) before anything is
 * checked or stored; then the form is checked (`parseLimitsForm`) and the hub checks the rest (`hubErrors`).
 */
export async function savePhoneLimits(up: Upstreams, clientId: string, deviceId: string, form: LimitsForm): Promise<LimitsSaved> {
  await getPhone(up, clientId, deviceId);
  const parsed = parseLimitsForm(form);
  if (!parsed.ok) return { ok: false, errors: parsed.errors, phone: await phoneDetail(up, clientId, deviceId) };
  try {
    await up.devices.setDeviceLimits({ clientId, deviceId, limits: parsed.value });
  } catch (err) {
    const errors = hubErrors(err);
    if (!errors) throw err;
    return { ok: false, errors, phone: await phoneDetail(up, clientId, deviceId) };
  }
  return { ok: true };
}
