import { AppError } from '@smsgw/platform';
import type { DeviceRepository } from '../data/device.repository';
import type { DeviceRow } from '../data/device-row';
import type { PresenceStore } from '../data/presence.store';

/** The most devices one CreateDevices or OwnedDevices call takes. */
export const MAX_BULK_DEVICES = 1000;

export interface DeviceView {
  device: DeviceRow;
  online: boolean;
}

/** Where the devices are stored and where their presence is read. */
export interface DevicesDeps {
  repo: Pick<DeviceRepository, 'find' | 'listByClient' | 'findOfClient' | 'rename' | 'clientsOf'>;
  presence: Pick<PresenceStore, 'onlineSet' | 'sampleOnline'>;
}

/** What reading one device of a client takes: every use case on a device starts with it. */
export interface DeviceLookup {
  repo: Pick<DeviceRepository, 'find'>;
  presence: Pick<PresenceStore, 'onlineSet'>;
}

/** The client's device with its presence; another client's device is "unknown" (INVALID_DEVICE_ID). */
export async function getDevice(deps: DeviceLookup, clientId: string, deviceId: string): Promise<DeviceView> {
  const device = /^device_[A-Za-z0-9]+$/.test(deviceId) ? await deps.repo.find(deviceId) : undefined;
  if (!device || device.client_id !== clientId) throw new AppError('INVALID_DEVICE_ID');
  const online = await deps.presence.onlineSet([deviceId]);
  return { device, online: online.has(deviceId) };
}

/** The client's devices (not removed) with their presence; with `onlineOnly`, the online ones. */
export async function listDevices(
  deps: { repo: Pick<DeviceRepository, 'listByClient'>; presence: Pick<PresenceStore, 'onlineSet'> },
  clientId: string,
  onlineOnly: boolean,
): Promise<DeviceView[]> {
  const devices = await deps.repo.listByClient(clientId);
  const online = await deps.presence.onlineSet(devices.map((d) => d.device_id));
  return devices.map((device) => ({ device, online: online.has(device.device_id) })).filter((v) => !onlineOnly || v.online);
}

/**
 * Up to `size` of the client's online devices drawn at random: what the automatic choice picks
 * among in a large fleet, at the cost of `size` devices whatever the fleet's size (one Redis
 * script, one query by key). All of them when no more than `size` are online.
 */
export async function sampleOnlineDevices(
  deps: { repo: Pick<DeviceRepository, 'findOfClient'>; presence: Pick<PresenceStore, 'sampleOnline'> },
  clientId: string,
  size: number,
): Promise<DeviceView[]> {
  const drawn = await deps.presence.sampleOnline(clientId, size);
  return (await deps.repo.findOfClient(clientId, drawn)).map((device) => ({ device, online: true }));
}

/** Whether another phone of the device's client, not removed, is online now (one query, one Redis read). */
export async function otherPhoneOnline(
  deps: { repo: Pick<DeviceRepository, 'listByClient'>; presence: Pick<PresenceStore, 'onlineSet'> },
  device: DeviceRow,
): Promise<boolean> {
  const others = (await deps.repo.listByClient(device.client_id)).filter((d) => d.device_id !== device.device_id);
  return (await deps.presence.onlineSet(others.map((d) => d.device_id))).size > 0;
}

export async function renameDevice(
  deps: DeviceLookup & { repo: Pick<DeviceRepository, 'rename'> },
  clientId: string,
  deviceId: string,
  name: string,
): Promise<DeviceView> {
  await getDevice(deps, clientId, deviceId);
  await deps.repo.rename(deviceId, name.trim().slice(0, 100));
  return getDevice(deps, clientId, deviceId);
}

/**
 * Those of the pairs whose device is the client's (removed ones included: a device never
 * changes client), in one query; at most MAX_BULK_DEVICES pairs.
 */
export async function ownedDevices(
  deps: { repo: Pick<DeviceRepository, 'clientsOf'> },
  pairs: { clientId: string; deviceId: string }[],
): Promise<{ clientId: string; deviceId: string }[]> {
  if (pairs.length > MAX_BULK_DEVICES) {
    const message = `devices: ${MAX_BULK_DEVICES} au plus.`;
    throw new AppError('VALIDATION_ERROR', { message, details: [{ field: 'devices', message }] });
  }
  const clients = await deps.repo.clientsOf([...new Set(pairs.map((p) => p.deviceId))]);
  return pairs.filter((p) => clients.get(p.deviceId) === p.clientId);
}
