import { keyModeToProto } from '@smsgw/platform';
import type { account } from '@smsgw/proto';
import { confirmPassword, type Confirmation } from './confirm-password.use-case';
import type { SignInDeps } from './sign-in.use-case';
import type { Mode, Upstreams } from './upstreams';

export async function listKeys(up: Upstreams, clientId: string): Promise<account.ApiKey__Output[]> {
  return (await up.accounts.listApiKeys({ clientId })).keys;
}

/**
 * A new key, the password asked again first: its value (shown once), and the client's keys
 * with it. A password refused makes nothing.
 */
export async function createKey(
  deps: Pick<SignInDeps, 'up' | 'redis' | 'signIn'>,
  user: { userId: string; email: string; clientId: string },
  password: string,
  key: { name: string; mode: Mode },
): Promise<{ confirmation: Confirmation; key?: string; keys: account.ApiKey__Output[] }> {
  const confirmation = await confirmPassword(deps, user, password);
  if (confirmation !== 'confirmed') return { confirmation, keys: await listKeys(deps.up, user.clientId) };
  const created = await deps.up.accounts.createApiKey({ clientId: user.clientId, mode: keyModeToProto(key.mode), label: key.name });
  return { confirmation, key: created.apiKey, keys: await listKeys(deps.up, user.clientId) };
}

export async function revokeKey(up: Upstreams, clientId: string, keyId: string): Promise<void> {
  await up.accounts.revokeApiKeyById({ clientId, keyId });
}
