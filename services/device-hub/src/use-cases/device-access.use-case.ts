import type { SessionRegistry } from '../sessions/session-registry';
import type { DeviceUseCases } from './devices.use-case';

/** A removed device, or one whose tokens are revoked, keeps no live session: on every replica, its phone is disconnected. */
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
