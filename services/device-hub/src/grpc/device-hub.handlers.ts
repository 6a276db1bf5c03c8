import type { AsyncHandlers, Callers } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import { countsByCause } from '../domain/sim-health';
import {
  removeDevice,
  revokeDeviceCredentials,
  revokeDeviceTokens,
  rotateDeviceCredentials,
  type RemovalDeps,
  type TokenRevocationDeps,
} from '../use-cases/device-access.use-case';
import { createDevice, createDevices, type CredentialsDeps, type IssuedCredentials } from '../use-cases/device-credentials.use-case';
import { setDeviceLimits, type DeviceLimitsDeps, type LimitedDeviceView } from '../use-cases/device-limits.use-case';
import { getDeviceView, listDeviceViews, renameDeviceView, type DeviceViewsDeps } from '../use-cases/device-views.use-case';
import { ownedDevices } from '../use-cases/devices.use-case';
import { getFleetSettings, setFleetSettings, type FleetSettingsDeps, type FleetSettingsView } from '../use-cases/fleet-settings.use-case';
import { phoneHealth, requestPhoneLog, type PhoneHealth, type PhoneHealthDeps } from '../use-cases/phone-health.use-case';
import { releaseSim, setSimHealthSettings, simHealthFromRequest, type SimHealthDeps } from '../use-cases/sim-health.use-case';
import { simulateReceived, type SimulateReceivedDeps } from '../use-cases/simulate-received.use-case';

const iso = (at: Date | undefined) => at?.toISOString() ?? '';

function healthToProto({ samples, diagnostics: d }: PhoneHealth): devicehub.DeviceHealth {
  return {
    samples: samples.map((t) => ({
      at: t.at.toISOString(),
      battery: t.battery ?? -1,
      charging: t.charging,
      sims: t.sims.map((sim) => ({ slot: sim.slot, level: sim.level ?? -1, dbm: sim.dbm ?? 0, network: sim.network })),
      storageFreeMb: t.storageFreeMb ?? -1,
      appVersion: t.appVersion,
      androidVersion: t.androidVersion,
      risks: t.risks,
    })),
    logRequestedAt: iso(d.logRequestedAt),
    logReceivedAt: iso(d.logReceivedAt),
    logLines: d.logLines,
    settingsVersion: d.settingsVersion,
    settingsSentAt: iso(d.settingsSentAt),
    settingsAppliedVersion: d.settingsAppliedVersion,
    settingsAppliedAt: iso(d.settingsAppliedAt),
  };
}

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
    simHealthSettings: view.simHealthSettings,
    simHealthOwn: view.simHealthOwn,
    simHealth: view.simHealth.map((h) => ({
      slot: h.slot,
      state: h.state,
      reason: h.reason,
      since: h.since === undefined ? '' : new Date(h.since).toISOString(),
      probeAfter: h.probeAfter === undefined ? '' : new Date(h.probeAfter).toISOString(),
      recent: Object.entries(countsByCause(h.recent)).map(([cause, count]) => ({ cause, count })),
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
  SetSimHealth: ['dashboard', 'admin'],
  ReleaseSim: ['dashboard', 'admin'],
  GetDeviceHealth: ['dashboard', 'admin'],
  RequestDeviceLog: ['dashboard', 'admin'],
  GetFleetSettings: ['dashboard', 'admin'],
  SetFleetSettings: ['dashboard', 'admin'],
};

/** What the RPCs' use cases work with, built once in `main.ts`. */
export type DeviceHubDeps = CredentialsDeps &
  RemovalDeps &
  TokenRevocationDeps &
  DeviceLimitsDeps &
  DeviceViewsDeps &
  SimHealthDeps &
  PhoneHealthDeps &
  SimulateReceivedDeps & {
    /** The account-wide settings' own collaborators (their `repo` is not the devices'). */
    fleet: FleetSettingsDeps;
  };

const fleetToProto = (v: FleetSettingsView): devicehub.FleetSettings => ({
  offlineAlertSeconds: v.offlineAlertSeconds,
  simHealth: v.simHealth,
});

function pairingAnswer(created: IssuedCredentials): devicehub.CreateDeviceResponse {
  return {
    deviceId: created.device.device_id,
    devicePassword: created.password,
    pairingUrl: created.pairingUrl,
    pairingCode: created.pairingCode,
    pairingExpiresAt: created.pairingExpiresAt.toISOString(),
  };
}

export function deviceHubHandlers(deps: DeviceHubDeps): AsyncHandlers<devicehub.DeviceHubServiceHandlers> {
  return {
    async CreateDevice(req) {
      return pairingAnswer(await createDevice(deps, req.clientId, req.name));
    },
    async CreateDevices(req) {
      return { devices: (await createDevices(deps, req.clientId, req.count, req.namePrefix, req.firstNumber || 1)).map(pairingAnswer) };
    },
    async RotateDeviceCredentials(req) {
      return pairingAnswer(await rotateDeviceCredentials(deps, req.clientId, req.deviceId));
    },
    async RevokeDeviceCredentials(req) {
      return { revoked: await revokeDeviceCredentials(deps, req.clientId, req.deviceId) };
    },
    async ListDevices(req) {
      return { devices: (await listDeviceViews(deps, req.clientId, req.onlineOnly, req.sample)).map(toProto) };
    },
    async GetDevice(req) {
      return toProto(await getDeviceView(deps, req.clientId, req.deviceId));
    },
    async RenameDevice(req) {
      return toProto(await renameDeviceView(deps, req.clientId, req.deviceId, req.name));
    },
    async SetDeviceLimits(req) {
      const given = req.limits;
      return toProto(
        await setDeviceLimits(deps, req.clientId, req.deviceId, {
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
    async SetSimHealth(req) {
      await setSimHealthSettings(deps, req.clientId, req.deviceId, simHealthFromRequest(req.settings), req.followAccount);
      return toProto(await getDeviceView(deps, req.clientId, req.deviceId));
    },
    async ReleaseSim(req) {
      await releaseSim(deps, req.clientId, req.deviceId, req.slot);
      return toProto(await getDeviceView(deps, req.clientId, req.deviceId));
    },
    async SimulateReceived(req) {
      const { clientId, deviceId, mode, from, text, sim } = req;
      return simulateReceived(deps, { clientId, deviceId, mode, from, text, sim });
    },
    async RemoveDevice(req) {
      await removeDevice(deps, req.clientId, req.deviceId);
      return { removed: true };
    },
    async RevokeDeviceTokens(req) {
      return { revoked: await revokeDeviceTokens(deps, req.clientId, req.deviceId) };
    },
    async GetDeviceHealth(req) {
      return healthToProto(await phoneHealth(deps, req.clientId, req.deviceId));
    },
    async GetFleetSettings(req) {
      return fleetToProto(await getFleetSettings(deps.fleet, req.clientId));
    },
    async SetFleetSettings(req) {
      const settings = { offlineAlertSeconds: req.offlineAlertSeconds, simHealth: simHealthFromRequest(req.simHealth) };
      return fleetToProto(await setFleetSettings(deps.fleet, req.clientId, settings));
    },
    async RequestDeviceLog(req) {
      return { requestedAt: (await requestPhoneLog(deps, req.clientId, req.deviceId)).toISOString() };
    },
    async OwnedDevices(req) {
      const owned = await ownedDevices(
        deps,
        req.devices.map((d) => ({ clientId: d.clientId, deviceId: d.deviceId })),
      );
      return { devices: owned };
    },
  };
}
