import fs from 'node:fs/promises';
import path from 'node:path';
import { isErrnoCode, removeFileDurably, writeFileDurably } from './durable-file';

/**
 * `<data-dir>/devices/<device_id>/credentials.json`: what a pairing gave, kept so that the agent
 * never pairs twice. (An earlier version kept it at `<data-dir>/credentials.json`.)
 */
export interface Credentials {
  hub_url: string;
  device_id: string;
  device_token: string;
  /** Where the hub said to connect; derived from hub_url when absent. */
  ws_url?: string;
  /** Digests of the pairing inputs that gave this device (see `pairingKey`); never the secrets. */
  pairing_keys?: string[];
}

export const CREDENTIALS_FILE = 'credentials.json';

/** The credentials of a folder (a device's, or the top of an earlier version's data directory). */
export async function readCredentials(dir: string): Promise<Credentials | undefined> {
  let content: string;
  try {
    content = await fs.readFile(path.join(dir, CREDENTIALS_FILE), 'utf8');
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  let value: Partial<Credentials>;
  try {
    value = JSON.parse(content) as Partial<Credentials>;
  } catch {
    return undefined;
  }
  if (typeof value.hub_url !== 'string' || typeof value.device_id !== 'string' || typeof value.device_token !== 'string') {
    return undefined;
  }
  return {
    hub_url: value.hub_url,
    device_id: value.device_id,
    device_token: value.device_token,
    ...(typeof value.ws_url === 'string' ? { ws_url: value.ws_url } : {}),
    ...(Array.isArray(value.pairing_keys)
      ? { pairing_keys: value.pairing_keys.filter((key): key is string => typeof key === 'string') }
      : {}),
  };
}

/** Readable by the owner only: the token lets anyone who holds it receive this phone's SMS. */
export async function saveCredentials(dir: string, credentials: Credentials): Promise<void> {
  await writeFileDurably(path.join(dir, CREDENTIALS_FILE), `${JSON.stringify(credentials, null, 2)}\n`, 0o600);
}

export async function deleteCredentials(dir: string): Promise<void> {
  await removeFileDurably(path.join(dir, CREDENTIALS_FILE));
}

export function wsUrlOf(credentials: Credentials): string {
  if (credentials.ws_url) return credentials.ws_url;
  const url = new URL('/v1/agent', credentials.hub_url);
  url.protocol = 'wss:';
  return url.toString();
}
