import { counter, type Logger, type PromiseClient } from '@smsgw/platform';
import type { account, message } from '@smsgw/proto';
import type { DeviceRepository } from '../data/device.repository';
import type { PresenceStore } from '../data/presence.store';

const released = counter('hub.failover_releases', "Devices whose messages the failover sweep opened to their client's fleet, by reason");

/** A client's failover delay when the account service gives none. */
export const DEFAULT_FAILOVER_DELAY_SECONDS = 60;
const DELAY_CACHE_MS = 30_000;

/**
 * Each client's failover delay (account GetClient), kept 30 s. When the account service fails,
 * the last known delay is used; without one, the device is skipped until the next sweep (never
 * a default shorter than what the client chose).
 */
export class FailoverDelays {
  private readonly cache = new Map<string, { delayMs: number; until: number }>();

  constructor(
    private readonly accounts: Pick<PromiseClient<account.AccountServiceClient>, 'getClient'>,
    private readonly clock: () => number,
  ) {}

  async delayMs(clientId: string): Promise<number | undefined> {
    const now = this.clock();
    const cached = this.cache.get(clientId);
    if (cached && cached.until > now) return cached.delayMs;
    try {
      const client = await this.accounts.getClient({ clientId });
      const delayMs = (client.failoverDelaySeconds > 0 ? client.failoverDelaySeconds : DEFAULT_FAILOVER_DELAY_SECONDS) * 1000;
      this.cache.set(clientId, { delayMs, until: now + DELAY_CACHE_MS });
      return delayMs;
    } catch {
      return cached?.delayMs;
    }
  }
}

export interface FailoverSweepDeps {
  messages: Pick<PromiseClient<message.MessageServiceClient>, 'strandedDevices' | 'releaseDevice'>;
  repo: Pick<DeviceRepository, 'findForSweep' | 'idsAfter'>;
  presence: Pick<PresenceStore, 'liveness' | 'markRemoved' | 'offlineSince'>;
  delays: Pick<FailoverDelays, 'delayMs'>;
  clock: () => number;
  log: Logger;
  /** How often the sweep looks at every device holding stranded messages, not only the phones gone lately. */
  fullSweepMs: number;
}

/** How far back a sweep looks for phones gone offline: older ones are the full pass's. */
const RECENTLY_GONE_MS = 3_600_000;
/** Phones gone lately a sweep looks at, at most (the full pass takes the rest). */
const RECENTLY_GONE_MAX = 5_000;
/** Devices the full pass reads at a time. */
const FULL_PASS_PAGE = 5_000;

/**
 * The failover sweep (every replica runs it; ReleaseDevice is idempotent): of the devices holding
 * unpinned messages no phone has taken, a removed one's are released REMOVED (what a failed
 * release at the removal left), an offline one's OFFLINE once it has been offline longer than its
 * client's failover delay. "Offline since": when Redis last saw it online, else its last_seen_at,
 * else its creation.
 *
 * Each pass looks at the phones that went offline (or were removed) in the last hour, which
 * presence keeps in a set: a handful, whatever the fleet. Every `fullSweepMs` a pass looks at
 * every device that is not online instead (its presence in Redis, a page of devices at a time):
 * the phones whose hub died (their presence expired, nobody marked them offline) and any other the
 * set misses. The phones online are never probed in the queue, where their outboxes would cost a
 * step per message.
 */
export class FailoverSweep {
  private lastFull = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: FailoverSweepDeps) {}

  /** One pass; returns the devices released. */
  async run(): Promise<string[]> {
    const { deps } = this;
    const now = deps.clock();
    if (now - this.lastFull >= deps.fullSweepMs) {
      this.lastFull = now;
      return this.fullPass();
    }
    const deviceIds = await deps.presence.offlineSince(now - RECENTLY_GONE_MS, RECENTLY_GONE_MAX);
    return releaseIfStranded(deps, deviceIds);
  }

  private async fullPass(): Promise<string[]> {
    const { deps } = this;
    const out: string[] = [];
    for (let after = ''; ;) {
      const page = await deps.repo.idsAfter(after, FULL_PASS_PAGE);
      const last = page.at(-1);
      if (last === undefined) return out;
      after = last;
      const liveness = await deps.presence.liveness(page);
      const absent = page.filter((id) => {
        const live = liveness.get(id);
        return !live?.online || live.removed;
      });
      out.push(...(await releaseIfStranded(deps, absent)));
    }
  }
}

/** Of these devices, releases those holding stranded messages that are removed or offline past their client's delay. */
async function releaseIfStranded(deps: FailoverSweepDeps, deviceIds: string[]): Promise<string[]> {
  // An empty list would ask the message service for every device.
  if (deviceIds.length === 0) return [];
  return releaseStranded(deps, (await deps.messages.strandedDevices({ deviceIds })).devices);
}

/** Releases, of the devices holding stranded messages, those removed or offline past their client's delay. */
async function releaseStranded(deps: FailoverSweepDeps, devices: message.StrandedDevice__Output[]): Promise<string[]> {
  if (devices.length === 0) return [];
  const ids = devices.map((d) => d.deviceId);
  const [rows, liveness] = await Promise.all([deps.repo.findForSweep(ids), deps.presence.liveness(ids)]);
  const now = deps.clock();
  const out: string[] = [];
  for (const row of rows) {
    const live = liveness.get(row.device_id);
    let reason: 'RELEASE_REASON_REMOVED' | 'RELEASE_REASON_OFFLINE' | undefined;
    if (row.removed_at) {
      reason = 'RELEASE_REASON_REMOVED';
      // The mark the gateways read, should Redis have lost it.
      if (!live?.removed) await deps.presence.markRemoved(row.device_id);
    } else if (live && !live.online) {
      const delayMs = await deps.delays.delayMs(row.client_id);
      const offlineSince = live.lastOnlineMs ?? row.last_seen_at?.getTime() ?? row.created_at.getTime();
      if (delayMs !== undefined && now - offlineSince >= delayMs) reason = 'RELEASE_REASON_OFFLINE';
    }
    if (!reason) continue;
    try {
      const result = await deps.messages.releaseDevice({ clientId: row.client_id, deviceId: row.device_id, reason });
      released.add(1, { reason });
      deps.log.info({ device_id: row.device_id, reason, moved: result.moved, failed: result.failed }, "device's messages released");
      out.push(row.device_id);
    } catch (err) {
      deps.log.warn({ err, device_id: row.device_id, reason }, "releasing the device's messages failed; the next sweep tries again");
    }
  }
  return out;
}
