import type { SessionRegistry } from '../sessions/session-registry';
import type { DeviceUseCases } from './devices.use-case';

/**
 * A removed device, or one whose tokens are revoked, keeps no live session: on every replica, its
 * phone is disconnected (at once by the NATS order, or else by each replica's credential check).
 */
export async function removeDevice(
  devices: DeviceUseCases,
  sessions: Pick<SessionRegistry, 'revoke'>,
  clientId: string,
  deviceId: string,
): Promise<void> {
  await devices.remove(clientId, deviceId);
  sessions.revoke(deviceId);
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
