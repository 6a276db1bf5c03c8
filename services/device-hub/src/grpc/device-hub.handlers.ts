import type { AsyncHandlers, Callers } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import {
  removeDevice,
  revokeDeviceCredentials,
  revokeDeviceTokens,
  rotateDeviceCredentials,
  type RemovalDeps,
} from '../use-cases/device-access.use-case';
import type { DeviceLimitsUseCases, LimitedDeviceView } from '../use-cases/device-limits.use-case';
import type { DeviceViewUseCases } from '../use-cases/device-views.use-case';
import type { DeviceUseCases } from '../use-cases/devices.use-case';
import type { SessionRegistry } from '../sessions/session-registry';
import type { SimulateReceivedUseCase } from '../use-cases/simulate-received.use-case';

function toProto(view: LimitedDeviceView): devicehub.Device {
  const { limits, usage } = view;
  return {
    deviceId: view.device.device_id,
    clientId: view.device.client_id,
    name: view.device.name,
    status: view.online ? 'online' : 'offline',
    lastSeenAt: view.device.last_seen_at?.toISOString() ?? '',
    createdAt: view.device.created_at.toISOString(),
    limits: {
      perMinute: limits.perMinute,
      perHour: limits.perHour,
      perDay: limits.perDay,
      minIntervalMs: limits.minIntervalMs,
      maxIntervalMs: limits.maxIntervalMs,
      sendingHoursStart: limits.sendingHoursStart,
      sendingHoursEnd: limits.sendingHoursEnd,
      timeZone: limits.timeZone,
    },
    usage: { lastMinute: usage.lastMinute, lastHour: usage.lastHour, lastDay: usage.lastDay },
    hasRoom: view.hasRoom,
    sims: view.sims.map((sim) => ({
      slot: sim.slot,
      carrier: sim.carrier ?? '',
      number: sim.number ?? '',
      usage: { lastMinute: sim.usage.lastMinute, lastHour: sim.usage.lastHour, lastDay: sim.usage.lastDay },
      hasRoom: sim.hasRoom,
    })),
  };
}

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const deviceHubCallers: Callers<devicehub.DeviceHubServiceHandlers> = {
  CreateDevice: ['dashboard', 'admin'],
  CreateDevices: ['admin'],
  ListDevices: ['gateway', 'dashboard', 'smpp'],
  GetDevice: ['gateway', 'dashboard', 'admin', 'smpp'],
  RevokeDeviceTokens: ['dashboard', 'admin'],
  RenameDevice: ['dashboard'],
  RemoveDevice: ['dashboard', 'admin'],
  RotateDeviceCredentials: ['dashboard', 'admin'],
  RevokeDeviceCredentials: ['dashboard', 'admin'],
  SetDeviceLimits: ['dashboard', 'admin'],
  SimulateReceived: ['admin'],
  OwnedDevices: ['message'],
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

export function deviceHubHandlers(
  devices: DeviceUseCases,
  limits: DeviceLimitsUseCases,
  views: DeviceViewUseCases,
  sessions: SessionRegistry,
  removal: RemovalDeps,
  received: SimulateReceivedUseCase,
): AsyncHandlers<devicehub.DeviceHubServiceHandlers> {
  return {
    async CreateDevice(req) {
      return pairingAnswer(await devices.create(req.clientId, req.name));
    },
    async CreateDevices(req) {
      return { devices: (await devices.createMany(req.clientId, req.count, req.namePrefix, req.firstNumber || 1)).map(pairingAnswer) };
    },
    async RotateDeviceCredentials(req) {
      return pairingAnswer(await rotateDeviceCredentials(devices, sessions, req.clientId, req.deviceId));
    },
    async RevokeDeviceCredentials(req) {
      return { revoked: await revokeDeviceCredentials(devices, sessions, req.clientId, req.deviceId) };
    },
    async ListDevices(req) {
      return { devices: (await views.list(req.clientId, req.onlineOnly, req.sample)).map(toProto) };
    },
    async GetDevice(req) {
      return toProto(await views.get(req.clientId, req.deviceId));
    },
    async RenameDevice(req) {
      return toProto(await views.rename(req.clientId, req.deviceId, req.name));
    },
    async SetDeviceLimits(req) {
      const given = req.limits;
      return toProto(
        await limits.setLimits(req.clientId, req.deviceId, {
          perMinute: given?.perMinute ?? 0,
          perHour: given?.perHour ?? 0,
          perDay: given?.perDay ?? 0,
          minIntervalMs: given?.minIntervalMs ?? 0,
          maxIntervalMs: given?.maxIntervalMs ?? 0,
          sendingHoursStart: given?.sendingHoursStart ?? '',
          sendingHoursEnd: given?.sendingHoursEnd ?? '',
          timeZone: given?.timeZone ?? '',
        }),
      );
    },
    async SimulateReceived(req) {
      const { clientId, deviceId, mode, from, text, sim } = req;
      return received.simulate({ clientId, deviceId, mode, from, text, sim });
    },
    async RemoveDevice(req) {
      await removeDevice(devices, sessions, req.clientId, req.deviceId, removal);
      return { removed: true };
    },
    async RevokeDeviceTokens(req) {
      return { revoked: await revokeDeviceTokens(devices, sessions, req.clientId, req.deviceId) };
    },
    async OwnedDevices(req) {
      const owned = await devices.owned(req.devices.map((d) => ({ clientId: d.clientId, deviceId: d.deviceId })));
      return { devices: owned };
    },
  };
}
