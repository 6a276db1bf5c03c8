import { AppError, SPECIAL_NUMBER_TYPES, type Destinations } from '@smsgw/platform';
import type { Upstreams } from './upstreams';

/** The destinations form as typed: the lists comma-separated, the special types ticked. */
export interface DestinationsForm {
  smsCountries: string;
  otpCountries: string;
  otpNumberTypes: string[];
}

/** What each special number type is, for the form's checkboxes. */
export const NUMBER_TYPE_LABELS: Record<(typeof SPECIAL_NUMBER_TYPES)[number], string> = {
  PREMIUM_RATE: 'premium-rate numbers',
  SHARED_COST: 'shared-cost numbers',
  TOLL_FREE: 'toll-free numbers',
  UAN: 'universal access numbers (UAN)',
  VOICEMAIL: 'voicemail access numbers',
  PAGER: 'pagers',
};

/** A comma- or space-separated list of country codes, upper-cased. */
const countries = (text: string) =>
  text
    .split(/[\s,;]+/)
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);

/** The client's destinations as the settings page shows them. */
export async function destinationsOf(up: Upstreams, clientId: string): Promise<Destinations> {
  const client = await up.accounts.getClient({ clientId });
  return { smsCountries: client.smsCountries, otpCountries: client.otpCountries, otpNumberTypes: client.otpNumberTypes };
}

/**
 * Stores the destinations as typed; the account service checks the countries against
 * libphonenumber's (its VALIDATION_ERROR comes back as `error`, with the fields it names).
 */
export async function saveDestinations(
  up: Upstreams,
  clientId: string,
  form: DestinationsForm,
): Promise<{ ok: true } | { ok: false; error: AppError }> {
  try {
    await up.accounts.updateClient({
      clientId,
      email: '',
      name: '',
      setDestinations: true,
      smsCountries: countries(form.smsCountries),
      otpCountries: countries(form.otpCountries),
      otpNumberTypes: form.otpNumberTypes.filter((t) => (SPECIAL_NUMBER_TYPES as readonly string[]).includes(t)),
    });
    return { ok: true };
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') return { ok: false, error: err };
    throw err;
  }
}
