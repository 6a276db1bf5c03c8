import { AppError, normalizePhoneNumber } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { INVALID_NUMBER } from './phone-number';
import type { Upstreams } from './upstreams';

/** The dashboard is the live account: it shows and changes the live list only. */
const LIVE = 'MODE_LIVE';
export const OPT_OUTS_PER_PAGE = 50;

/** The opt-outs page: a page of the list, and the keyword settings unless the page gives back the settings form as typed. */
export interface OptOutsOverview {
  list: message.ListOptOutsResponse__Output;
  settings?: message.OptOutSettings__Output;
}

export async function optOutsOverview(up: Upstreams, clientId: string, page: number, withSettings = true): Promise<OptOutsOverview> {
  const [list, settings] = await Promise.all([
    up.messages.listOptOuts({ clientId, mode: LIVE, page, limit: OPT_OUTS_PER_PAGE }),
    withSettings ? up.messages.getOptOutSettings({ clientId }) : undefined,
  ]);
  return { list, settings };
}

/**
 * Adds a number typed by a person (checked as the API checks a `to`, stored in E.164); when it is
 * not one, the error with the page (`page`) to show it on.
 */
export async function addOptOut(
  up: Upstreams,
  clientId: string,
  typed: string,
  page: number,
): Promise<{ number: string } | { error: string; page: OptOutsOverview }> {
  const number = normalizePhoneNumber(typed);
  if (!number) return { error: INVALID_NUMBER, page: await optOutsOverview(up, clientId, page) };
  await up.messages.addOptOut({ clientId, mode: LIVE, phoneNumber: number, source: 'dashboard' });
  return { number };
}

/** Removes a number; false when it was not on the list (removed meanwhile: nothing to do). */
export async function removeOptOut(up: Upstreams, clientId: string, number: string): Promise<boolean> {
  try {
    return (await up.messages.removeOptOut({ clientId, mode: LIVE, phoneNumber: number, source: '' })).removed;
  } catch (err) {
    if (err instanceof AppError && err.code === 'OPT_OUT_NOT_FOUND') return false;
    throw err;
  }
}

export const SETTINGS_FIELDS = ['opt_out_keywords', 'start_keywords', 'otp_ignores_opt_out'] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];
/** The settings form as typed: the lists comma-separated, the checkbox 'on' or ''. */
export type SettingsForm = Record<SettingsField, string>;
export type SettingsErrors = Partial<Record<SettingsField | '', string>>;

export function settingsForm(s: message.OptOutSettings__Output): SettingsForm {
  return {
    opt_out_keywords: s.optOutKeywords.join(', '),
    start_keywords: s.startKeywords.join(', '),
    otp_ignores_opt_out: s.otpIgnoresOptOut ? 'on' : '',
  };
}

/**
 * A comma-separated list: each keyword trimmed, spaces inside collapsed, upper-cased and without
 * accents (a received SMS is matched without its accents: ARRÊT is stored ARRET, which it then
 * matches); empty ones dropped.
 */
export const keywordList = (text: string) =>
  text
    .split(',')
    .map((k) => k.trim().replace(/\s+/g, ' ').toUpperCase().normalize('NFD').replace(/\p{M}/gu, ''))
    .filter(Boolean);

/**
 * Stores the settings as typed. The service checks the keywords (its rules are its own: length,
 * characters, how many, none in both lists): its VALIDATION_ERROR comes back per field, with the
 * page (`page`) to give the form back on.
 */
export async function saveSettings(
  up: Upstreams,
  clientId: string,
  form: SettingsForm,
  page: number,
): Promise<{ ok: true } | { ok: false; errors: SettingsErrors; page: OptOutsOverview }> {
  try {
    await up.messages.setOptOutSettings({
      clientId,
      optOutKeywords: keywordList(form.opt_out_keywords),
      startKeywords: keywordList(form.start_keywords),
      otpIgnoresOptOut: form.otp_ignores_opt_out !== '',
    });
    return { ok: true };
  } catch (err) {
    if (!(err instanceof AppError) || err.httpStatus !== 400) throw err;
    return { ok: false, errors: settingsErrors(err), page: await optOutsOverview(up, clientId, page, false) };
  }
}

/** A field as the service may name it (`opt_out_keywords[2]`, `optOutKeywords`, `start_keywords.0`) as the form's. */
function formField(name: string | undefined): SettingsField | '' {
  if (!name) return '';
  const base = name
    .replace(/[[.].*$/, '')
    .replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
    .toLowerCase();
  return (SETTINGS_FIELDS as readonly string[]).includes(base) ? (base as SettingsField) : '';
}

function settingsErrors(err: AppError): SettingsErrors {
  const errors: SettingsErrors = {};
  for (const d of err.details ?? []) {
    const key = formField(d.field);
    const text = d.message || err.message;
    if (!errors[key]?.includes(text)) errors[key] = errors[key] ? `${errors[key]} ${text}` : text;
  }
  if (Object.keys(errors).length === 0) errors[''] = err.message;
  return errors;
}
