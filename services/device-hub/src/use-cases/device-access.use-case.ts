import type { Logger, PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { PresenceStore } from '../data/presence.store';
import type { SessionRegistry } from '../sessions/session-registry';
import type { DeviceUseCases } from './devices.use-case';

/** What a removal does besides Postgres: the mark the gateways read, and the release of the phone's messages. */
export interface RemovalDeps {
  presence: Pick<PresenceStore, 'markRemoved'>;
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
export async function removeDevice(
  devices: DeviceUseCases,
  sessions: Pick<SessionRegistry, 'revoke'>,
  clientId: string,
  deviceId: string,
  deps: RemovalDeps,
): Promise<void> {
  await devices.get(clientId, deviceId);
  await deps.presence.markRemoved(deviceId);
  await devices.remove(clientId, deviceId);
  sessions.revoke(deviceId);
  try {
    const released = await deps.messages.releaseDevice({ clientId, deviceId, reason: 'RELEASE_REASON_REMOVED' });
    deps.log.info({ device_id: deviceId, moved: released.moved, failed: released.failed }, "removed device's messages released");
  } catch (err) {
    deps.log.warn({ err, device_id: deviceId }, "releasing the removed device's messages failed; the failover sweep will do it");
  }
}

/** Revokes the device's tokens and disconnects its phone; returns how many tokens were revoked. */
export async function revokeDeviceTokens(
  devices: DeviceUseCases,
  sessions: Pick<SessionRegistry, 'revoke'>,
  clientId: string,
  deviceId: string,
): Promise<number> {
  const revoked = await devices.revokeTokens(clientId, deviceId);
  sessions.revoke(deviceId);
  return revoked;
}

/** A new pairing for the device (new password and code, shown once); its phone is disconnected. */
export async function rotateDeviceCredentials(
  devices: DeviceUseCases,
  sessions: Pick<SessionRegistry, 'revoke'>,
  clientId: string,
  deviceId: string,
) {
  const rotated = await devices.rotateCredentials(clientId, deviceId);
  sessions.revoke(deviceId);
  return rotated;
}

/** Revokes the device's tokens, password and pairing code, and disconnects its phone. */
export async function revokeDeviceCredentials(
  devices: DeviceUseCases,
  sessions: Pick<SessionRegistry, 'revoke'>,
  clientId: string,
  deviceId: string,
): Promise<number> {
  const revoked = await devices.revokeCredentials(clientId, deviceId);
  sessions.revoke(deviceId);
  return revoked;
}
