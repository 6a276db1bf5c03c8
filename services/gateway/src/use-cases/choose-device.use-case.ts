import { AppError } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import type { DeviceState } from '../clients/device-directory';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

export interface ChosenDevice {
  deviceId: string;
  status: 'online' | 'offline';
}

/**
 * Authentication rules 6 and 7: the device named by X-Device-ID must be the
 * client's (404) and online (503). A removed device is refused like an
 * unknown one (404), read from Redis on every request, so that no replica
 * accepts a send for it after the hub answered its removal. Without the
 * header, the automatic choice (see `preferred`). With a test key every
 * device of the client counts as online: the simulated device stands in for
 * it. `presence` is the requested device's state when it was already asked
 * for; it is used only once the device is known to be the client's.
 */
export async function chooseDevice(
  up: Upstreams,
  auth: AuthContext,
  requested: string | undefined,
  options: { allowOffline?: boolean; presence?: { deviceId: string; state: Promise<DeviceState> } } = {},
): Promise<ChosenDevice> {
  const lenient = auth.mode === 'test' || options.allowOffline === true;
  if (requested) {
    let asked = options.presence?.deviceId === requested ? options.presence.state : undefined;
    if (!asked) {
      // Asked alongside the ownership check, so that a cached owner costs one Redis round trip in all.
      asked = up.directory.state(requested);
      asked.catch(() => undefined);
    }
    const device = await up.directory.owned(auth.clientId, requested);
    const state = await asked;
    if (state.removed) {
      up.directory.forgetRemoved(device);
      throw new AppError('INVALID_DEVICE_ID');
    }
    const online = auth.mode === 'test' || state.online;
    if (!online && !lenient) throw new AppError('DEVICE_OFFLINE');
    return { deviceId: device.deviceId, status: online ? 'online' : 'offline' };
  }
  const { devices } = await up.devices.listDevices({ clientId: auth.clientId, onlineOnly: !lenient });
  const candidates = preferred(devices);
  const depths = await queueDepths(up, candidates);
  const chosen = candidates.reduce((best, d) => (depths.get(d.deviceId)! < depths.get(best.deviceId)! ? d : best));
  const online = chosen.status === 'online' || auth.mode === 'test';
  return { deviceId: chosen.deviceId, status: online ? 'online' : 'offline' };
}

/**
 * The devices the automatic choice picks among: those whose limits and
 * sending hours let them send now (`has_room`), or all of them when none
 * has room (the message then waits, within its ttl, for the first phone
 * with room). DEVICE_OFFLINE when the client has none.
 */
function preferred(devices: devicehub.Device__Output[]): devicehub.Device__Output[] {
  if (devices.length === 0) throw new AppError('DEVICE_OFFLINE', { message: 'Aucun appareil en ligne pour ce client.' });
  const withRoom = devices.filter((d) => d.hasRoom);
  return withRoom.length > 0 ? withRoom : devices;
}

/** Each device's queued messages (one call, and none for a single device). */
async function queueDepths(up: Upstreams, devices: devicehub.Device__Output[]): Promise<Map<string, number>> {
  const ids = devices.map((d) => d.deviceId);
  const { depths } = ids.length > 1 ? await up.messages.queueDepths({ deviceIds: ids }) : { depths: {} as Record<string, number> };
  return new Map(ids.map((id) => [id, depths[id] ?? 0]));
}

/**
 * The device of each of `count` messages of a batch: all on the requested
 * device, or spread over the devices the automatic choice prefers, each
 * message going to the device whose queue is then the shortest.
 */
export async function spreadOverDevices(
  up: Upstreams,
  auth: AuthContext,
  requested: string | undefined,
  count: number,
  presence?: { deviceId: string; state: Promise<DeviceState> },
): Promise<string[]> {
  if (requested) {
    const device = await chooseDevice(up, auth, requested, { presence });
    return Array.from({ length: count }, () => device.deviceId);
  }
  const { devices } = await up.devices.listDevices({ clientId: auth.clientId, onlineOnly: auth.mode === 'live' });
  const candidates = preferred(devices);
  const load = await queueDepths(up, candidates);
  const ids = candidates.map((d) => d.deviceId);
  return Array.from({ length: count }, () => {
    let best = ids[0]!;
    for (const id of ids) if (load.get(id)! < load.get(best)!) best = id;
    load.set(best, load.get(best)! + 1);
    return best;
  });
}
