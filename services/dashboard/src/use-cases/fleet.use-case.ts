import type { Destinations } from '@smsgw/platform';
import type { Upstreams } from './upstreams';

/** The bounds of the account service (issue 23): a default ttl of 0 (none) or 60 s to 7 days; a failover delay of 10 s to 1 day. */
export const TTL_MIN = 60;
export const TTL_MAX = 604_800;
export const DELAY_MIN = 10;
export const DELAY_MAX = 86_400;
export const DELAY_DEFAULT = 60;
export const SIM_MAX = 8;

/** Which SIM a phone with several sends through when a message names none. */
export type SimRule = 'round_robin' | 'default';

/** The client's fleet settings. */
export interface FleetSettings {
  /** The ttl of a send that gives none; 0: none. */
  defaultTtlSeconds: number;
  /** How long a phone may stay offline before its unpinned queued messages move to the other phones. */
  failoverDelaySeconds: number;
  /** Round robin over the SIMs with room, or always `defaultSim` (a phone without it uses its first). */
  simRule: SimRule;
  defaultSim: number;
}

/** The form as typed, given back when it is refused. */
export interface FleetForm {
  defaultTtl: string;
  failoverDelay: string;
  simRule: string;
  defaultSim: string;
}

export type FleetField = keyof FleetForm;

export type FleetParse = { ok: true; value: FleetSettings } | { ok: false; errors: Partial<Record<FleetField, string>> };

export const TTL_ERROR = 'The default time to live is a whole number of seconds from 60 (1 minute) to 604800 (7 days), or empty for none.';
export const DELAY_ERROR = 'The failover delay is a whole number of seconds from 10 to 86400 (1 day).';
export const SIM_RULE_ERROR = 'The SIM rule is either round robin or a default SIM.';
export const DEFAULT_SIM_ERROR = 'The default SIM is a slot from 1 to 8.';

const whole = (text: string) => (/^\d{1,9}$/.test(text) ? Number(text) : NaN);

/** The fleet form checked as the account service will: empty ttl is none, empty delay the default 60 s. */
export function parseFleetForm(form: FleetForm): FleetParse {
  const errors: Partial<Record<FleetField, string>> = {};
  const ttl = form.defaultTtl === '' ? 0 : whole(form.defaultTtl);
  if (!(ttl === 0 || (ttl >= TTL_MIN && ttl <= TTL_MAX))) errors.defaultTtl = TTL_ERROR;
  const delay = form.failoverDelay === '' ? DELAY_DEFAULT : whole(form.failoverDelay);
  if (!(delay >= DELAY_MIN && delay <= DELAY_MAX)) errors.failoverDelay = DELAY_ERROR;
  const simRule = form.simRule === '' ? 'round_robin' : form.simRule;
  if (simRule !== 'round_robin' && simRule !== 'default') errors.simRule = SIM_RULE_ERROR;
  const defaultSim = form.defaultSim === '' ? 1 : whole(form.defaultSim);
  if (!(defaultSim >= 1 && defaultSim <= SIM_MAX)) errors.defaultSim = DEFAULT_SIM_ERROR;
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { defaultTtlSeconds: ttl, failoverDelaySeconds: delay, simRule: simRule as SimRule, defaultSim } };
}

/** The client's settings the settings page shows: its alert address, its fleet settings and its destinations. */
export interface ClientSettings {
  email: string;
  verified: boolean;
  /** Whether the account proved its owner's address. */
  accountVerified: boolean;
  fleet: FleetSettings;
  destinations: Destinations;
}

export async function clientSettings(up: Upstreams, clientId: string): Promise<ClientSettings> {
  const client = await up.accounts.getClient({ clientId });
  return {
    email: client.email,
    verified: client.emailVerified,
    accountVerified: client.accountVerified,
    fleet: {
      defaultTtlSeconds: client.defaultTtlSeconds,
      // A service that does not know the setting yet answers 0: the default applies.
      failoverDelaySeconds: client.failoverDelaySeconds || DELAY_DEFAULT,
      simRule: client.simRule === 'default' ? 'default' : 'round_robin',
      defaultSim: client.defaultSim || 1,
    },
    destinations: {
      smsCountries: client.smsCountries ?? [],
      otpCountries: client.otpCountries ?? [],
      otpNumberTypes: client.otpNumberTypes ?? [],
    },
  };
}

/** Stores the fleet and SIM settings (the e-mail and the name stay as they are). */
export async function changeFleet(up: Upstreams, clientId: string, settings: FleetSettings): Promise<void> {
  await up.accounts.updateClient({
    clientId,
    email: '',
    name: '',
    setFleet: true,
    defaultTtlSeconds: settings.defaultTtlSeconds,
    failoverDelaySeconds: settings.failoverDelaySeconds,
    setSimRule: true,
    simRule: settings.simRule,
    defaultSim: settings.defaultSim,
  });
}
