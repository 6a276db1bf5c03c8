import { AppError } from '@smsgw/platform';
import type { Upstreams } from './upstreams';

/**
 * Whether the account proved it holds its owner's address (the link mailed at sign-up, or a
 * password reset): live keys, phones and webhook endpoints wait for it.
 */
export async function accountVerified(up: Upstreams, clientId: string): Promise<boolean> {
  return (await up.accounts.getClient({ clientId })).accountVerified;
}

/** ACCOUNT_NOT_VERIFIED unless the account is verified: what adding a phone or a pairing asks first. */
export async function requireVerifiedAccount(up: Upstreams, clientId: string): Promise<void> {
  if (!(await accountVerified(up, clientId))) throw new AppError('ACCOUNT_NOT_VERIFIED');
}

/** What a reset that first proved the address revoked, besides the keys the account service revoked. */
export interface RevokedBefore {
  /** Phones whose pairing (password, code, tokens) was revoked; they stay listed until removed. */
  phones: number;
  /** Webhook endpoints deleted. */
  endpoints: number;
}

/**
 * Everything the other services hold of the account, made before its address was proven: each
 * phone's credentials (it is disconnected and pairs no more until given a new pairing) and every
 * webhook endpoint. Whoever signed up with the address before its owner could have made them.
 */
export async function revokeWhatCameBefore(up: Upstreams, clientId: string): Promise<RevokedBefore> {
  const [{ devices }, { endpoints }] = await Promise.all([
    up.devices.listDevices({ clientId, onlineOnly: false }),
    up.webhooks.listEndpoints({ clientId }),
  ]);
  for (const d of devices) await up.devices.revokeDeviceCredentials({ clientId, deviceId: d.deviceId });
  for (const e of endpoints) await up.webhooks.deleteEndpoint({ clientId, endpointId: e.endpointId });
  return { phones: devices.length, endpoints: endpoints.length };
}
