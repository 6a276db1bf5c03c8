import { AppError } from '@smsgw/platform';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

export interface ChosenDevice {
  deviceId: string;
  status: 'online' | 'offline';
}

/**
 * Authentication rules 6 and 7: the device named by X-Device-ID must be the
 * client's (404) and online (503). Without the header, the client's online
 * device with the shortest queue is used. With a test key every device of
 * the client counts as online: the simulated device stands in for it.
 * `presence` is the requested device's presence when it was already asked
 * for; it is used only once the device is known to be the client's.
 */
export async function chooseDevice(
  up: Upstreams,
  auth: AuthContext,
  requested: string | undefined,
  options: { allowOffline?: boolean; presence?: { deviceId: string; online: Promise<boolean> } } = {},
): Promise<ChosenDevice> {
  const lenient = auth.mode === 'test' || options.allowOffline === true;
  if (requested) {
    const device = await up.directory.owned(auth.clientId, requested);
    const presence = options.presence?.deviceId === device.deviceId ? options.presence.online : undefined;
    const online = auth.mode === 'test' || (await (presence ?? up.directory.isOnline(device.deviceId)));
    if (!online && !lenient) throw new AppError('DEVICE_OFFLINE');
    return { deviceId: device.deviceId, status: online ? 'online' : 'offline' };
  }
  const { devices } = await up.devices.listDevices({ clientId: auth.clientId, onlineOnly: !lenient });
  if (devices.length === 0) throw new AppError('DEVICE_OFFLINE', { message: 'Aucun appareil en ligne pour ce client.' });
  let chosen = devices[0]!;
  if (devices.length > 1) {
    const { depths } = await up.messages.queueDepths({ deviceIds: devices.map((d) => d.deviceId) });
    chosen = devices.reduce((best, d) => ((depths[d.deviceId] ?? 0) < (depths[best.deviceId] ?? 0) ? d : best));
  }
  const online = chosen.status === 'online' || auth.mode === 'test';
  return { deviceId: chosen.deviceId, status: online ? 'online' : 'offline' };
}

/**
 * The device of each of `count` messages of a batch: all on the requested
 * device, or spread over the client's online devices, each message going to
 * the device whose queue is then the shortest.
 */
export async function spreadOverDevices(up: Upstreams, auth: AuthContext, requested: string | undefined, count: number): Promise<string[]> {
  if (requested) {
    const device = await chooseDevice(up, auth, requested);
    return Array.from({ length: count }, () => device.deviceId);
  }
  const { devices } = await up.devices.listDevices({ clientId: auth.clientId, onlineOnly: auth.mode === 'live' });
  if (devices.length === 0) throw new AppError('DEVICE_OFFLINE', { message: 'Aucun appareil en ligne pour ce client.' });
  const ids = devices.map((d) => d.deviceId);
  const { depths } = ids.length > 1 ? await up.messages.queueDepths({ deviceIds: ids }) : { depths: {} as Record<string, number> };
  const load = new Map(ids.map((id) => [id, depths[id] ?? 0]));
  return Array.from({ length: count }, () => {
    let best = ids[0]!;
    for (const id of ids) if (load.get(id)! < load.get(best)!) best = id;
    load.set(best, load.get(best)! + 1);
    return best;
  });
}
