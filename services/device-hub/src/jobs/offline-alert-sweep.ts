import { counter, type Logger } from '@smsgw/platform';
import type { FleetSettingsRepository, OfflineCandidate } from '../data/fleet-settings.repository';
import type { PresenceStore } from '../data/presence.store';

const warned = counter('hub.offline_warnings', 'Phones whose owner was warned that they stayed offline past the delay');

/** Phones read at a time. */
const PAGE = 1000;

export interface OfflineAlertDeps {
  repo: Pick<FleetSettingsRepository, 'offlineCandidates' | 'claimOfflineWarning' | 'releaseOfflineWarning'>;
  presence: Pick<PresenceStore, 'liveness'>;
  /** Publishes `device.offline` (the webhook service mails the owner and calls the subscribed endpoints). */
  publishOffline(phone: OfflineCandidate, offlineSince: Date): Promise<void>;
  /** The delay of an account that saved none, in seconds (0: no warning by default). */
  defaultSeconds: number;
  clock: () => number;
  log: Logger;
}

/**
 * One pass of the offline warning (issue 38); every replica runs it. The phones not seen for longer
 * than their account's delay and not warned in this spell come from one indexed query a page at a
 * time; Redis tells which are online all the same (connected long ago) and, for a phone whose hub
 * died, when it was last online. Each warning is claimed in Postgres first, so that two replicas
 * never both warn; a phone seen again starts a new spell. Returns the phones warned.
 */
export async function warnOfflinePhones(deps: OfflineAlertDeps): Promise<string[]> {
  const out: string[] = [];
  for (let after = ''; ;) {
    const page = await deps.repo.offlineCandidates(deps.defaultSeconds, after, PAGE);
    const last = page.at(-1);
    if (!last) return out;
    after = last.device_id;
    const liveness = await deps.presence.liveness(page.map((p) => p.device_id));
    const now = deps.clock();
    for (const phone of page) {
      const live = liveness.get(phone.device_id);
      if (live?.online) continue;
      const since = Math.max(phone.last_seen_at.getTime(), live?.lastOnlineMs ?? 0);
      if (now - since < phone.alert_seconds * 1000) continue;
      if (!(await deps.repo.claimOfflineWarning(phone.device_id, phone.last_seen_at))) continue;
      try {
        await deps.publishOffline(phone, new Date(since));
      } catch (err) {
        await deps.repo.releaseOfflineWarning(phone.device_id).catch(() => undefined);
        deps.log.warn({ err, device_id: phone.device_id }, 'the offline warning could not be published; the next pass tries again');
        continue;
      }
      warned.add(1);
      deps.log.info({ device_id: phone.device_id }, 'phone offline past its delay; owner warned');
      out.push(phone.device_id);
    }
  }
}
