import { createLogger } from '@smsgw/platform';
import type { OfflineCandidate } from '../src/data/fleet-settings.repository';
import type { Liveness } from '../src/data/presence.store';
import { warnOfflinePhones, type OfflineAlertDeps } from '../src/jobs/offline-alert-sweep';

/** The offline warning's pass without I/O: which phones it warns, and once per spell. */

const NOW = Date.parse('2026-11-29T12:00:00Z');
const phone = (id: string, lastSeenMinutesAgo: number, alertSeconds = 1800): OfflineCandidate => ({
  device_id: id,
  client_id: 'client_a',
  name: id,
  last_seen_at: new Date(NOW - lastSeenMinutesAgo * 60_000),
  alert_seconds: alertSeconds,
});

function world(candidates: OfflineCandidate[], liveness: Record<string, Liveness> = {}) {
  const claimed = new Set<string>();
  const published: string[] = [];
  let failPublish = false;
  const deps: OfflineAlertDeps = {
    repo: {
      async offlineCandidates(_default, after) {
        return candidates.filter((c) => c.device_id > after && !claimed.has(c.device_id));
      },
      async claimOfflineWarning(deviceId) {
        if (claimed.has(deviceId)) return false;
        claimed.add(deviceId);
        return true;
      },
      async releaseOfflineWarning(deviceId) {
        claimed.delete(deviceId);
      },
    },
    presence: { liveness: async (ids) => new Map(ids.filter((id) => liveness[id]).map((id) => [id, liveness[id]!])) },
    async publishOffline(p) {
      if (failPublish) throw new Error('NATS down');
      published.push(p.device_id);
    },
    defaultSeconds: 1800,
    clock: () => NOW,
    log: createLogger('test', 'silent'),
  };
  return { deps, published, claimed, failNext: (v: boolean) => (failPublish = v) };
}

describe('offline warning pass', () => {
  it('when phones are offline past their delay, then each is warned once, and a phone online or seen lately is not', async () => {
    const w = world([phone('d1', 40), phone('d2', 40), phone('d3', 40)], {
      d2: { online: true, lastOnlineMs: NOW, removed: false },
      // Its hub died: last seen online 10 minutes ago in Redis, though Postgres has its connection of 40 minutes ago.
      d3: { online: false, lastOnlineMs: NOW - 10 * 60_000, removed: false },
    });
    expect(await warnOfflinePhones(w.deps)).toEqual(['d1']);
    expect(await warnOfflinePhones(w.deps)).toEqual([]);
    expect(w.published).toEqual(['d1']);
  });

  it('when the event cannot be published, then the claim is given back and the next pass warns', async () => {
    const w = world([phone('d1', 40)]);
    w.failNext(true);
    expect(await warnOfflinePhones(w.deps)).toEqual([]);
    expect(w.claimed.size).toBe(0);
    w.failNext(false);
    expect(await warnOfflinePhones(w.deps)).toEqual(['d1']);
  });
});
