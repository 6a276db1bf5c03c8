import { withUsage, type DeviceLimitsDeps, type LimitedDeviceView } from './device-limits.use-case';
import {
  getDevice,
  listDevices,
  renameDevice,
  sampleOnlineDevices,
  type DeviceLookup,
  type DevicesDeps,
  type DeviceView,
} from './devices.use-case';

/** The reads and the rename of the API: each answers the devices as it shows them, with their limits, usage and room. */
export type DeviceViewsDeps = DevicesDeps & Pick<DeviceLimitsDeps, 'usage' | 'health' | 'clock'>;

/** The client's devices; with `onlineOnly` and a `sample` above 0, at most that many online ones drawn at random. */
export async function listDeviceViews(
  deps: DeviceViewsDeps,
  clientId: string,
  onlineOnly: boolean,
  sample: number,
): Promise<LimitedDeviceView[]> {
  const views =
    onlineOnly && sample > 0 ? await sampleOnlineDevices(deps, clientId, sample) : await listDevices(deps, clientId, onlineOnly);
  return withUsage(deps, views, !(onlineOnly && sample > 0));
}

export async function getDeviceView(
  deps: DeviceLookup & Pick<DeviceLimitsDeps, 'usage' | 'health' | 'clock'>,
  clientId: string,
  deviceId: string,
): Promise<LimitedDeviceView> {
  return one(deps, await getDevice(deps, clientId, deviceId));
}

export async function renameDeviceView(
  deps: DeviceViewsDeps,
  clientId: string,
  deviceId: string,
  name: string,
): Promise<LimitedDeviceView> {
  return one(deps, await renameDevice(deps, clientId, deviceId, name));
}

async function one(deps: Pick<DeviceLimitsDeps, 'usage' | 'health' | 'clock'>, view: DeviceView): Promise<LimitedDeviceView> {
  return (await withUsage(deps, [view]))[0]!;
}
