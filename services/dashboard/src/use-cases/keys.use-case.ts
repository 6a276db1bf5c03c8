import { AppError, keyModeToProto, keyUsageKey, utcDay, type Redis } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { confirmPassword, type Confirmation, type Reauthentication } from './confirm-password.use-case';
import type { SignInDeps } from './sign-in.use-case';
import type { Mode, Upstreams } from './upstreams';

/** A key as the Keys page shows it: what the account service lists, and its SMS of the day (UTC). */
export type KeyView = account.ApiKey__Output & { usedToday: number };

/** What the owner asks a new key to be limited to (empty: every scope, any address; 0: no quota). */
export interface KeyLimitsForm {
  scopes: string[];
  ipRanges: string[];
  dailyQuota: number;
}

/**
 * The client's keys, each with its SMS of the day as the gateways count them (Redis
 * `key-usage:*`, read only); a revoked key's count is not read.
 */
export async function listKeys(deps: { up: Upstreams; redis: Redis }, clientId: string): Promise<KeyView[]> {
  const keys = (await deps.up.accounts.listApiKeys({ clientId })).keys;
  const active = keys.filter((k) => !k.revokedAt);
  const day = utcDay(new Date());
  const counts = active.length ? await deps.redis.mget(...active.map((k) => keyUsageKey(k.keyId, day))) : [];
  const used = new Map(active.map((k, i) => [k.keyId, Number(counts[i] ?? 0)]));
  return keys.map((k) => ({ ...k, usedToday: used.get(k.keyId) ?? 0 }));
}

/**
 * A new key, the password asked again first: its value (shown once), and the client's keys
 * with it. A password refused makes nothing; limits the account service refuses make nothing
 * either (`error`, its VALIDATION_ERROR naming the fields).
 */
export async function createKey(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  user: { userId: string; email: string; clientId: string },
  password: Reauthentication,
  key: { name: string; mode: Mode } & KeyLimitsForm,
  address = '',
): Promise<{ confirmation: Confirmation; key?: string; error?: AppError; keys: KeyView[] }> {
  const confirmation = await confirmPassword(deps, user, password);
  if (confirmation !== 'confirmed') return { confirmation, keys: await listKeys(deps, user.clientId) };
  try {
    const created = await deps.up.accounts.createApiKey({
      clientId: user.clientId,
      mode: keyModeToProto(key.mode),
      label: key.name,
      scopes: key.scopes,
      ipRanges: key.ipRanges,
      dailyQuota: key.dailyQuota,
      createdByUserId: user.userId,
      actorAddress: address,
    });
    return { confirmation, key: created.apiKey, keys: await listKeys(deps, user.clientId) };
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR')
      return { confirmation, error: err, keys: await listKeys(deps, user.clientId) };
    throw err;
  }
}

/** Revokes a key of the client; the audit log records the user and the address they acted from. */
export async function revokeKey(up: Upstreams, user: { userId: string; clientId: string }, keyId: string, address = ''): Promise<void> {
  await up.accounts.revokeApiKeyById({ clientId: user.clientId, keyId, userId: user.userId, actorAddress: address });
}
