import { gauge } from '@smsgw/platform';
import { batteryBand } from '../domain/telemetry';
import type { SessionRegistry } from '../sessions/session-registry';

/**
 * The phones' telemetry as metrics (issue 38), counted over the phones this replica holds at each
 * scrape (sum over replicas: the fleet). Labels are bounded: a battery band and whether it charges,
 * a network type, a risk; never a device or client id.
 */
export function phoneMetrics(sessions: Pick<SessionRegistry, 'held'>): void {
  gauge(
    'hub.phone_battery',
    'Connected phones that report telemetry, by battery band (low <= 15 %, medium <= 50 %, high) and charging',
    (r) => {
      const counts = new Map<string, number>();
      for (const session of sessions.held()) {
        const t = session.phone.latest;
        if (!t) continue;
        const key = `${batteryBand(t.battery)}|${t.charging}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      for (const [key, n] of counts) {
        const [band, charging] = key.split('|');
        r.observe(n, { band: band!, charging: charging! });
      }
    },
  );
  gauge('hub.phone_sims', 'SIMs of connected phones, by network type and signal level (0 to 4, or unknown)', (r) => {
    const counts = new Map<string, number>();
    for (const session of sessions.held()) {
      for (const sim of session.phone.latest?.sims ?? []) {
        const key = `${sim.network}|${sim.level ?? 'unknown'}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    for (const [key, n] of counts) {
      const [network, level] = key.split('|');
      r.observe(n, { network: network!, level: level! });
    }
  });
  gauge('hub.phone_risks', 'Connected phones the system may stop, by reason (battery_optimized, sms_restricted, no_boot_start)', (r) => {
    const counts = new Map<string, number>();
    for (const session of sessions.held()) {
      for (const risk of session.phone.latest?.risks ?? []) counts.set(risk, (counts.get(risk) ?? 0) + 1);
    }
    for (const [risk, n] of counts) r.observe(n, { risk });
  });
}
