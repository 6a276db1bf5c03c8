import { AppError, Batches, issueSecret, newId, secretLookup, secretMatches, hashSecret } from '@smsgw/platform';
import type { DeviceRepository, FoundToken } from '../data/device.repository';
import type { DeviceRow } from '../data/device-row';
import type { PairingAttemptStore } from '../data/pairing-attempts.store';
import type { DevicePasswordHasher } from '../domain/device-password-hash';
import { normalizeDevicePassword, normalizePairingCode, pairingAddressKey } from '../domain/pairing';

const TOKEN_PREFIX = 'dtk_';

/** How long a connecting phone's token lookup waits for others' (a query each costs more than the wait). */
const TOKEN_LOOKUP_DELAY_MS = 10;

export interface PairingLimits {
  /** Failed pairing attempts allowed per client address in `rateWindowMs`. */
  rateLimit: number;
  rateWindowMs: number;
  /** Wrong tries allowed per pairing code or device password in `lockMs`; past them it is locked. */
  maxFailures: number;
  lockMs: number;
  /** Pairings one device may make in `perDeviceWindowMs`: a leaked password cannot take the phone over again and again. */
  perDeviceMax: number;
  perDeviceWindowMs: number;
}

/** What pairing takes: the devices, the attempts' counts, the password hashing and the limits. */
export interface PairingDeps {
  repo: Pick<DeviceRepository, 'consumePairingCode' | 'findByPasswordLookup' | 'upgradePasswordHash' | 'insertOnlyToken'>;
  attempts: Pick<PairingAttemptStore, 'count' | 'refund' | 'reset'>;
  passwords: DevicePasswordHasher;
  settings: PairingLimits;
}

export interface AuthenticatedDevice {
  device: DeviceRow;
  tokenId: string;
}

/** Finds a device token by its lookup. */
export type TokenFinder = (lookup: string) => Promise<FoundToken | undefined>;

/**
 * A token finder that looks up together the phones connecting within TOKEN_LOOKUP_DELAY_MS of
 * each other: a fleet coming back after a restart costs Postgres one query per batch, not one per
 * phone. Made once (in `main.ts`), shared by every connection.
 */
export function batchedTokenFinder(repo: Pick<DeviceRepository, 'findTokens'>): TokenFinder {
  const lookups = new Batches<string, undefined, FoundToken>((batch) => repo.findTokens([...batch.keys()]));
  return async (lookup) => (await lookups.add(lookup, undefined, TOKEN_LOOKUP_DELAY_MS)).get(lookup);
}

/** The device of a good token, with the token's id (its session is closed once the token is revoked). */
export async function authenticateDevice(deps: { tokens: TokenFinder }, token: string): Promise<AuthenticatedDevice> {
  const lookup = secretLookup(TOKEN_PREFIX, token);
  const found = lookup && (await deps.tokens(lookup));
  if (!found || found.revoked_at || !secretMatches(token, found.token_hash)) throw new AppError('INVALID_DEVICE_TOKEN');
  return { device: found.device, tokenId: found.token_id };
}

/**
 * Pairs with a one-time code or with client id + device password, and issues a device token.
 * Every attempt is counted before it is checked, against the caller's address and against its
 * target (the code or password): past the limits it is refused with 429 and Retry-After, even
 * when right. A right attempt gives its address's count back and clears its target's; it is
 * then counted against its device (`perDeviceMax` in the window, 429 past it), and its token
 * becomes the device's only one: the tokens of earlier pairings are revoked (the phone that held
 * one is closed by the credential check of its replica).
 */
export async function pairDevice(
  deps: PairingDeps,
  body: Record<string, unknown>,
  clientAddress: string | undefined,
): Promise<{ device_id: string; device_token: string }> {
  const { rateLimit, rateWindowMs, maxFailures, lockMs } = deps.settings;
  // An address a trusted proxy hid (undefined) is everyone's: only the target's count applies then.
  const address = clientAddress === undefined ? undefined : `address:${pairingAddressKey(clientAddress)}`;
  const byAddress = address === undefined ? undefined : await deps.attempts.count(address, rateWindowMs);
  if (byAddress && byAddress.count > rateLimit) {
    throw new AppError('RATE_LIMIT_EXCEEDED', {
      message: "Trop de tentatives d'appairage depuis cette adresse : réessayez plus tard.",
      retryAfterSeconds: Math.max(1, Math.ceil(byAddress.retryAfterMs / 1000)),
    });
  }
  const target = pairingTarget(deps, body);
  if (!target) throw new AppError('INVALID_PAIRING');
  const byTarget = await deps.attempts.count(target.key, lockMs);
  if (byTarget.count > maxFailures) {
    throw new AppError('RATE_LIMIT_EXCEEDED', {
      message: "Trop d'essais erronés pour ce code d'appairage ou ce mot de passe d'appareil : il est bloqué, réessayez plus tard.",
      retryAfterSeconds: Math.max(1, Math.ceil(byTarget.retryAfterMs / 1000)),
    });
  }
  const device = await target.find();
  if (!device) throw new AppError('INVALID_PAIRING');
  await Promise.all([address && deps.attempts.refund(address), deps.attempts.reset(target.key)]);
  const byDevice = await deps.attempts.count(`device:${device.device_id}`, deps.settings.perDeviceWindowMs);
  if (byDevice.count > deps.settings.perDeviceMax) {
    throw new AppError('RATE_LIMIT_EXCEEDED', {
      message: "Trop d'appairages de cet appareil : réessayez plus tard, ou donnez-lui un nouvel appairage depuis le tableau de bord.",
      retryAfterSeconds: Math.max(1, Math.ceil(byDevice.retryAfterMs / 1000)),
    });
  }
  const token = issueSecret(TOKEN_PREFIX);
  await deps.repo.insertOnlyToken({ tokenId: newId('tok'), deviceId: device.device_id, lookup: token.lookup, hash: token.hash });
  return { device_id: device.device_id, device_token: token.plain };
}

/** What the pairing request aims at: the key its tries are counted under, and how to check it. */
function pairingTarget(
  deps: Pick<PairingDeps, 'repo' | 'passwords'>,
  body: Record<string, unknown>,
): { key: string; find(): Promise<DeviceRow | undefined> } | undefined {
  if (typeof body.pairing_code === 'string') {
    const code = normalizePairingCode(body.pairing_code);
    return code && { key: `code:${code.lookup}`, find: () => deps.repo.consumePairingCode(code.lookup, hashSecret(code.normalized)) };
  }
  if (typeof body.client_id === 'string' && typeof body.device_password === 'string' && /^client_[0-9]+$/.test(body.client_id)) {
    const clientId = body.client_id;
    const password = normalizeDevicePassword(body.device_password);
    return (
      password && {
        key: `password:${clientId}:${password.lookup}`,
        find: async () => {
          const candidate = await deps.repo.findByPasswordLookup(clientId, password.lookup);
          if (!candidate?.password_hash || !(await deps.passwords.matches(password.normalized, candidate.password_hash))) return undefined;
          if (!deps.passwords.isCurrent(candidate.password_hash)) {
            await deps.repo.upgradePasswordHash(
              candidate.device_id,
              candidate.password_hash,
              await deps.passwords.hash(password.normalized),
            );
          }
          return candidate;
        },
      }
    );
  }
  return undefined;
}
