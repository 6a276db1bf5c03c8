import { AppError } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import type { DeviceState } from '../clients/device-directory';
import type { AuthContext } from '../http/context';
import type { Upstreams } from './upstreams';

/**
 * How many online phones the automatic choice weighs: the client's whole fleet up to this size,
 * beyond it this many drawn at random (the shortest queue of 32 random phones is within a message
 * or two of the fleet's shortest, and reading 20,000 phones' usage and queues per send is not).
 */
export const CHOICE_SAMPLE = 32;

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
 * `sim`: the SIM slot asked for (see `checkPinnedSim` and `preferred`).
 */
export async function chooseDevice(
  up: Upstreams,
  auth: AuthContext,
  requested: string | undefined,
  options: { allowOffline?: boolean; presence?: { deviceId: string; state: Promise<DeviceState> }; sim?: number } = {},
): Promise<ChosenDevice> {
  const lenient = auth.mode === 'test' || options.allowOffline === true;
  if (requested) {
    let asked = options.presence?.deviceId === requested ? options.presence.state : undefined;
    if (!asked) {
      // Asked alongside the ownership check, so that a cached owner costs one Redis round trip in all.
      asked = up.directory.state(requested);
      asked.catch(() => undefined);
    }
    // The phone's SIMs change when it reconnects, so they are asked of the hub (only when a SIM is asked for).
    const sims = options.sim === undefined ? undefined : up.devices.getDevice({ clientId: auth.clientId, deviceId: requested });
    sims?.catch(() => undefined);
    const device = await up.directory.owned(auth.clientId, requested);
    const state = await asked;
    if (state.removed) {
      up.directory.forgetRemoved(device);
      throw new AppError('INVALID_DEVICE_ID');
    }
    if (sims) checkPinnedSim(await sims, options.sim!);
    const online = auth.mode === 'test' || state.online;
    if (!online && !lenient) throw new AppError('DEVICE_OFFLINE');
    return { deviceId: device.deviceId, status: online ? 'online' : 'offline' };
  }
  const { devices } = await up.devices.listDevices({ clientId: auth.clientId, onlineOnly: !lenient, sample: CHOICE_SAMPLE });
  const candidates = preferred(devices, options.sim);
  const depths = await queueDepths(up, candidates);
  const chosen = candidates.reduce((best, d) => (depths.get(d.deviceId)! < depths.get(best.deviceId)! ? d : best));
  const online = chosen.status === 'online' || auth.mode === 'test';
  return { deviceId: chosen.deviceId, status: online ? 'online' : 'offline' };
}

/** 400 VALIDATION_ERROR naming `sim`. */
function simError(message: string): AppError {
  return new AppError('VALIDATION_ERROR', { message, details: [{ field: 'sim', code: 'VALIDATION_ERROR', message }] });
}

/** A phone that reported its SIMs has slots 1 to n; one that never said (protocol 3 or older) accepts any. */
const hasSlot = (device: devicehub.Device__Output, sim: number): boolean => device.sims.length === 0 || device.sims.length >= sim;

/** The named phone must have the SIM asked for, when it reported its SIMs. */
function checkPinnedSim(device: devicehub.Device__Output, sim: number): void {
  if (!hasSlot(device, sim)) throw simError(`Le téléphone n'a que ${device.sims.length} SIM.`);
}

/** Room to send now: through the SIM asked for when the phone reported it (limits apply per SIM), else the phone's. */
function hasRoom(device: devicehub.Device__Output, sim: number | undefined): boolean {
  const slot = sim === undefined ? undefined : device.sims.find((s) => s.slot === sim);
  return slot ? slot.hasRoom : device.hasRoom;
}

/**
 * The devices the automatic choice picks among (of those drawn, in a fleet
 * larger than CHOICE_SAMPLE online phones): with a `sim`, only those
 * with that slot (or unknown SIMs); then those whose limits and sending
 * hours let them send now (`has_room`), or all of them when none has room
 * (the message then waits, within its ttl, for the first phone with room).
 * DEVICE_OFFLINE when the client has none; VALIDATION_ERROR on `sim` when
 * none has that slot.
 */
function preferred(devices: devicehub.Device__Output[], sim: number | undefined): devicehub.Device__Output[] {
  if (devices.length === 0) throw new AppError('DEVICE_OFFLINE', { message: 'Aucun appareil en ligne pour ce client.' });
  const able = sim === undefined ? devices : devices.filter((d) => hasSlot(d, sim));
  if (able.length === 0) throw simError(`Aucun téléphone de ce client n'a de SIM ${sim}.`);
  const withRoom = able.filter((d) => hasRoom(d, sim));
  return withRoom.length > 0 ? withRoom : able;
}

/** Queued messages counted per device for the choice: past this, a phone is busy enough. */
const DEPTH_UP_TO = 200;

/** Each device's queued messages, up to DEPTH_UP_TO (one call, and none for a single device). */
async function queueDepths(up: Upstreams, devices: devicehub.Device__Output[]): Promise<Map<string, number>> {
  const ids = devices.map((d) => d.deviceId);
  const { depths } =
    ids.length > 1 ? await up.messages.queueDepths({ deviceIds: ids, upTo: DEPTH_UP_TO }) : { depths: {} as Record<string, number> };
  return new Map(ids.map((id) => [id, depths[id] ?? 0]));
}

/**
 * The device of each message of a batch, given the SIM each asks for
 * (undefined: none): all on the requested device (which must have the
 * highest slot asked for), or spread over the devices the automatic choice
 * prefers for that message's SIM, each message going to the device whose
 * queue is then the shortest.
 */
export async function spreadOverDevices(
  up: Upstreams,
  auth: AuthContext,
  requested: string | undefined,
  sims: (number | undefined)[],
  presence?: { deviceId: string; state: Promise<DeviceState> },
): Promise<string[]> {
  if (requested) {
    const asked = sims.filter((s): s is number => s !== undefined);
    const sim = asked.length > 0 ? Math.max(...asked) : undefined;
    const device = await chooseDevice(up, auth, requested, { presence, sim });
    return sims.map(() => device.deviceId);
  }
  const { devices } = await up.devices.listDevices({
    clientId: auth.clientId,
    onlineOnly: auth.mode === 'live',
    sample: Math.max(CHOICE_SAMPLE, sims.length),
  });
  const candidates = new Map([...new Set(sims)].map((sim) => [sim, preferred(devices, sim).map((d) => d.deviceId)]));
  const load = await queueDepths(
    up,
    devices.filter((d) => [...candidates.values()].some((ids) => ids.includes(d.deviceId))),
  );
  return sims.map((sim) => {
    const ids = candidates.get(sim)!;
    let best = ids[0]!;
    for (const id of ids) if (load.get(id)! < load.get(best)!) best = id;
    load.set(best, load.get(best)! + 1);
    return best;
  });
}
