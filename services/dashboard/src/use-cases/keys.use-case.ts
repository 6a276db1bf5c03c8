import { keyModeToProto } from '@smsgw/platform';
import type { Mode, Upstreams } from './upstreams';

export async function listKeys(up: Upstreams, clientId: string) {
  return (await up.accounts.listApiKeys({ clientId })).keys;
}

/** A new key: its value, shown once. */
export async function createKey(up: Upstreams, clientId: string, name: string, mode: Mode): Promise<string> {
  const created = await up.accounts.createApiKey({ clientId, mode: keyModeToProto(mode), label: name });
  return created.apiKey;
}

export async function revokeKey(up: Upstreams, clientId: string, keyId: string): Promise<void> {
  await up.accounts.revokeApiKeyById({ clientId, keyId });
}
