import type { DeviceRepository } from '../data/device.repository';
import { limitsOf, simsOfRow } from '../data/device-row';
import type { UsageKey, UsageStore } from '../data/usage.store';
import { hasCountLimits, hasRoom, validateLimits, type DeviceLimits, type Usage } from '../domain/limits';
import { effectiveSimHealth, everySimBlocked, hasOwnSimHealth, type SimHealth, type SimHealthSettings } from '../domain/sim-health';
import type { SimInfo } from '../domain/sims';
import type { SessionRegistry } from '../sessions/session-registry';
import { getDevice, type DeviceLookup, type DeviceView } from './devices.use-case';

/** One SIM of a device as the API shows it: what it sent in the limits' windows, whether it may send now. */
export interface SimView extends SimInfo {
  usage: Usage;
  hasRoom: boolean;
}

/**
 * A device as the API shows it: with its limits, what it sent in their windows (the whole
 * phone), whether it may send now, and its SIMs. With 2 or more SIMs the limits apply to each
 * SIM: the device has room when one of them has.
 */
export interface LimitedDeviceView extends DeviceView {
  limits: DeviceLimits;
  usage: Usage;
  hasRoom: boolean;
  sims: SimView[];
  simHealthSettings: SimHealthSettings;
  /** Whether the phone has thresholds of its own rather than its account's. */
  simHealthOwn: boolean;
  /** Its SIMs' health (those never recorded are healthy and absent). */
  simHealth: SimHealth[];
}

/** Where the views read the SIMs' health: all of it, or (the automatic choice) the SIMs not healthy, read every few seconds. */
export interface HealthSource {
  of(deviceIds: string[]): Promise<Map<string, SimHealth[]>>;
  unhealthy(): Promise<Map<string, SimHealth[]>>;
}

const NO_USAGE: Usage = { lastMinute: 0, lastHour: 0, lastDay: 0 };

/** Per-phone limits and hours: setting them, and the usage and room of devices for their views. */
export interface DeviceLimitsDeps extends DeviceLookup {
  repo: Pick<DeviceRepository, 'find' | 'setLimits'>;
  usage: Pick<UsageStore, 'counts'>;
  sessions: Pick<SessionRegistry, 'reload'>;
  health: HealthSource;
  clock: () => number;
}

/**
 * The views with limits, usage and room, the phone's and each SIM's (one Redis round trip for
 * all), and their SIMs' health: a quarantined SIM has no room. `fresh` false (the automatic
 * choice): the states of the SIMs not healthy as read within the last seconds, without results,
 * and the usage of phones with a count limit only (a phone without one has room whatever it
 * sent; its usage shows 0): three Redis counts a phone drawn, on every automatic send, otherwise.
 */
export async function withUsage(
  deps: Pick<DeviceLimitsDeps, 'usage' | 'health' | 'clock'>,
  views: DeviceView[],
  fresh = true,
): Promise<LimitedDeviceView[]> {
  const now = deps.clock();
  const healthOf = fresh ? deps.health.of(views.map((v) => v.device.device_id)) : deps.health.unhealthy();
  const keys: UsageKey[] = [];
  const perView = views.map((view) => {
    const deviceId = view.device.device_id;
    const limits = limitsOf(view.device);
    const sims = simsOfRow(view.device);
    if (!fresh && !hasCountLimits(limits)) return { view, limits, sims, phoneAt: -1, simAt: sims.map(() => -1) };
    const phoneAt = keys.push({ deviceId }) - 1;
    // With one SIM, the SIM is the phone: its usage and room are the phone's.
    const simAt = sims.length >= 2 ? sims.map((sim) => keys.push({ deviceId, slot: sim.slot }) - 1) : sims.map(() => phoneAt);
    return { view, limits, sims, phoneAt, simAt };
  });
  const [counts, health] = await Promise.all([deps.usage.counts(keys, now), healthOf]);
  return perView.map(({ view, limits, sims, phoneAt, simAt }) => {
    const used = counts[phoneAt] ?? NO_USAGE;
    const simHealth = health.get(view.device.device_id) ?? [];
    const usable = (slot: number) => !everySimBlocked(simHealth, [slot], now);
    const simViews = sims.map((sim, i) => {
      const simUsed = counts[simAt[i]!] ?? NO_USAGE;
      return { ...sim, usage: simUsed, hasRoom: hasRoom(now, limits, simUsed) && (sims.length < 2 || usable(sim.slot)) };
    });
    const room =
      sims.length >= 2
        ? simViews.some((s) => s.hasRoom)
        : hasRoom(now, limits, used) &&
          !everySimBlocked(
            simHealth,
            sims.map((s) => s.slot),
            now,
          );
    const simHealthSettings = effectiveSimHealth(view.device.sim_health_settings, view.device.fleet_sim_health);
    const simHealthOwn = hasOwnSimHealth(view.device.sim_health_settings);
    // One literal, not a spread copy with more fields: an automatic choice makes a view of each phone
    // it draws, up to 32 (docs/contributors/conventions.md, "Busy paths").
    return {
      device: view.device,
      online: view.online,
      limits,
      usage: used,
      hasRoom: room,
      sims: simViews,
      simHealthSettings,
      simHealthOwn,
      simHealth,
    };
  });
}

/**
 * Stores the client's device's limits (all of them: a field at 0 or empty is none) and tells
 * the replica holding its phone to read them again. VALIDATION_ERROR for impossible values.
 */
export async function setDeviceLimits(
  deps: DeviceLimitsDeps,
  clientId: string,
  deviceId: string,
  input: Partial<DeviceLimits>,
): Promise<LimitedDeviceView> {
  const limits = validateLimits(input);
  await getDevice(deps, clientId, deviceId);
  await deps.repo.setLimits(deviceId, limits);
  deps.sessions.reload(deviceId);
  const [view] = await withUsage(deps, [await getDevice(deps, clientId, deviceId)]);
  return view!;
}
