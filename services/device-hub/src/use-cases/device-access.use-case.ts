import type { Logger, PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { DeviceRepository } from '../data/device.repository';
import type { PresenceStore } from '../data/presence.store';
import type { SessionRegistry } from '../sessions/session-registry';
import { revokeCredentials, rotateCredentials, type CredentialsDeps, type IssuedCredentials } from './device-credentials.use-case';
import { getDevice, type DeviceLookup } from './devices.use-case';

/** What ending a device's access takes besides its storage: the sessions to close, on every replica. */
export interface AccessDeps extends DeviceLookup {
  sessions: Pick<SessionRegistry, 'revoke'>;
}

/** What revoking a device's tokens takes. */
export interface TokenRevocationDeps extends AccessDeps {
  repo: Pick<DeviceRepository, 'find' | 'revokeTokens'>;
}

/** What a removal does besides Postgres: the mark the gateways read, and the release of the phone's messages. */
export interface RemovalDeps extends AccessDeps {
  repo: Pick<DeviceRepository, 'find' | 'remove'>;
  presence: Pick<PresenceStore, 'onlineSet' | 'markRemoved'>;
  messages: Pick<PromiseClient<message.MessageServiceClient>, 'releaseDevice'>;
  log: Logger;
}

/**
 * A removed device, or one whose tokens are revoked, keeps no live session: on every replica, its
 * phone is disconnected (at once by the NATS order, or else by each replica's credential check).
 * Before the removal is answered, the device is marked removed in Redis (every gateway refuses
 * sends naming it from then on) and its messages are released: the unpinned ones go to the
 * client's other phones, the pinned ones fail DEVICE_REMOVED. The Redis mark comes before the
 * Postgres removal, so that a failed mark fails the call and a retry finds the device still
 * there; a failed release does not fail the removal: the failover sweep repeats it.
 */
export async function removeDevice(deps: RemovalDeps, clientId: string, deviceId: string): Promise<void> {
  await getDevice(deps, clientId, deviceId);
  await deps.presence.markRemoved(deviceId);
  // Read again: a removal that raced this one has nothing left to remove (INVALID_DEVICE_ID).
  await getDevice(deps, clientId, deviceId);
  await deps.repo.remove(deviceId);
  deps.sessions.revoke(deviceId);
  try {
    const released = await deps.messages.releaseDevice({ clientId, deviceId, reason: 'RELEASE_REASON_REMOVED' });
    deps.log.info({ device_id: deviceId, moved: released.moved, failed: released.failed }, "removed device's messages released");
  } catch (err) {
    deps.log.warn({ err, device_id: deviceId }, "releasing the removed device's messages failed; the failover sweep will do it");
  }
}

/** Revokes the device's tokens and disconnects its phone; returns how many tokens were revoked. */
export async function revokeDeviceTokens(deps: TokenRevocationDeps, clientId: string, deviceId: string): Promise<number> {
  await getDevice(deps, clientId, deviceId);
  const revoked = await deps.repo.revokeTokens(deviceId);
  deps.sessions.revoke(deviceId);
  return revoked;
}

/** A new pairing for the device (new password and code, shown once); its phone is disconnected. */
export async function rotateDeviceCredentials(
  deps: AccessDeps & Pick<CredentialsDeps, 'repo' | 'passwords' | 'settings'>,
  clientId: string,
  deviceId: string,
): Promise<IssuedCredentials> {
  const rotated = await rotateCredentials(deps, clientId, deviceId);
  deps.sessions.revoke(deviceId);
  return rotated;
}

/** Revokes the device's tokens, password and pairing code, and disconnects its phone. */
export async function revokeDeviceCredentials(
  deps: AccessDeps & Pick<CredentialsDeps, 'repo'>,
  clientId: string,
  deviceId: string,
): Promise<number> {
  const revoked = await revokeCredentials(deps, clientId, deviceId);
  deps.sessions.revoke(deviceId);
  return revoked;
}
