import type { AsyncHandlers, Callers } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import { removeDevice, revokeDeviceCredentials, revokeDeviceTokens, rotateDeviceCredentials } from '../use-cases/device-access.use-case';
import type { DeviceUseCases, DeviceView } from '../use-cases/devices.use-case';
import type { SessionRegistry } from '../sessions/session-registry';

function toProto(view: DeviceView): devicehub.Device {
  return {
    deviceId: view.device.device_id,
    clientId: view.device.client_id,
    name: view.device.name,
    status: view.online ? 'online' : 'offline',
    lastSeenAt: view.device.last_seen_at?.toISOString() ?? '',
    createdAt: view.device.created_at.toISOString(),
  };
}

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const deviceHubCallers: Callers<devicehub.DeviceHubServiceHandlers> = {
  CreateDevice: ['dashboard', 'admin'],
  ListDevices: ['gateway', 'dashboard'],
  GetDevice: ['gateway', 'dashboard', 'admin'],
  RevokeDeviceTokens: ['dashboard', 'admin'],
  RenameDevice: ['dashboard'],
  RemoveDevice: ['dashboard', 'admin'],
  RotateDeviceCredentials: ['dashboard', 'admin'],
  RevokeDeviceCredentials: ['dashboard', 'admin'],
};

function pairingAnswer(created: Awaited<ReturnType<DeviceUseCases['create']>>): devicehub.CreateDeviceResponse {
  return {
    deviceId: created.device.device_id,
    devicePassword: created.password,
    pairingUrl: created.pairingUrl,
    pairingCode: created.pairingCode,
    pairingExpiresAt: created.pairingExpiresAt.toISOString(),
  };
}

export function deviceHubHandlers(devices: DeviceUseCases, sessions: SessionRegistry): AsyncHandlers<devicehub.DeviceHubServiceHandlers> {
  return {
    async CreateDevice(req) {
      return pairingAnswer(await devices.create(req.clientId, req.name));
    },
    async RotateDeviceCredentials(req) {
      return pairingAnswer(await rotateDeviceCredentials(devices, sessions, req.clientId, req.deviceId));
    },
    async RevokeDeviceCredentials(req) {
      return { revoked: await revokeDeviceCredentials(devices, sessions, req.clientId, req.deviceId) };
    },
    async ListDevices(req) {
      return { devices: (await devices.list(req.clientId, req.onlineOnly)).map(toProto) };
    },
    async GetDevice(req) {
      return toProto(await devices.get(req.clientId, req.deviceId));
    },
    async RenameDevice(req) {
      return toProto(await devices.rename(req.clientId, req.deviceId, req.name));
    },
    async RemoveDevice(req) {
      await removeDevice(devices, sessions, req.clientId, req.deviceId);
      return { removed: true };
    },
    async RevokeDeviceTokens(req) {
      return { revoked: await revokeDeviceTokens(devices, sessions, req.clientId, req.deviceId) };
    },
  };
}
