// SIM health in one phone's session (issue 38): each SIM's results as its reports come, the
// quarantine a threshold makes, the slots the dispatch loop may use, the probe after a cool-down.
// What is stored: the results a few seconds late with the other phones' (SimHealthWriter) when they
// changed, a change of state at once, with its public event.
import { counter, type LogSink } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { SimHealthRepository } from '../data/sim-health.repository';
import type { SimHealthWriter } from '../data/sim-health.writer';
import {
  blocked,
  healthySim,
  probeDue,
  probing,
  recordResult,
  resultOf,
  effectiveSimHealth,
  sameResults,
  type HealthChange,
  type SimHealth,
  type SimHealthSettings,
} from '../domain/sim-health';
import type { AgentReport } from '@smsgw/platform';

const quarantines = counter('hub.sim_quarantines', 'SIMs quarantined, by reason, and quarantines extended by a failed probe');
const releases = counter('hub.sim_releases', 'SIMs released from quarantine, by how (probe, by hand)');

export type SimEventKind = 'device.degraded' | 'device.recovered';

export interface SessionHealthDeps {
  simHealth: Pick<SimHealthRepository, 'of' | 'save'>;
  simHealthWriter: Pick<SimHealthWriter, 'note' | 'changed'>;
  /** Publishes `device.degraded` (a SIM quarantined) or `device.recovered` (released). */
  publishSimEvent(kind: SimEventKind, device: DeviceRow, health: SimHealth, how: string): Promise<void>;
  /** Opens the device's unpinned queued messages to its client's other phones (every SIM quarantined). */
  releaseQuarantined(device: DeviceRow): Promise<void>;
  clock: () => number;
}

/** How often a phone whose every SIM is quarantined hands the messages queued on it meanwhile to the fleet. */
export const QUARANTINED_RELEASE_MS = 15_000;
/**
 * Messages whose results were counted, kept per session (a report sent again counts once): the
 * last hundred, a busy phone's last minutes, about 7 kB a phone. An agent sends a report again
 * 10 s after it went unanswered (PROTOCOL.md §3).
 */
const COUNTED_KEPT = 100;
/** The results a message may count: its `sent`, and a `failed` (after it, or instead of it). */
const COUNTED_BIT = { sent: 1, failed: 2 } as const;

/**
 * The health of a phone's SIMs on one connection: read at the connection (and again at a reload
 * order, a release by hand), then kept here, where the reports arrive. A phone that listed fewer
 * than 2 SIMs is slot 1 (its one SIM).
 */
export class SessionHealth {
  private settings: SimHealthSettings;
  private readonly sims = new Map<number, SimHealth>();
  /** The results counted, by message id (`COUNTED_BIT`s), oldest first. */
  private counted?: Map<string, number>;
  private lastRelease = Number.NEGATIVE_INFINITY;
  /** The probe message out on each SIM probing (on this connection: after a reconnect, none, and the probe times out). */
  private readonly probes = new Map<number, string>();

  constructor(
    private device: DeviceRow,
    private readonly deps: SessionHealthDeps,
    private readonly log: LogSink,
  ) {
    this.settings = effectiveSimHealth(device.sim_health_settings, device.fleet_sim_health);
  }

  /** Reads the SIMs' health as stored (at the connection, and at a reload order); a failed read keeps what is known. */
  async load(slots: readonly number[]): Promise<void> {
    const healthSlots = slots.length >= 2 ? slots : [slots[0] ?? 1];
    try {
      const stored = (await this.deps.simHealth.of([this.device.device_id])).get(this.device.device_id) ?? [];
      this.sims.clear();
      for (const slot of healthSlots) this.sims.set(slot, stored.find((s) => s.slot === slot) ?? healthySim(slot));
    } catch (err) {
      this.log.warn({ err }, "the SIMs' health not read; they count as healthy");
      for (const slot of healthSlots) if (!this.sims.has(slot)) this.sims.set(slot, healthySim(slot));
    }
  }

  /** Takes the device's thresholds as stored now. */
  applySettings(device: DeviceRow): void {
    this.device = device;
    this.settings = effectiveSimHealth(device.sim_health_settings, device.fleet_sim_health);
  }

  /**
   * The slots the phone may send through now, of those with room (`withRoom`; empty for a phone
   * of one SIM: any). Undefined when none: every SIM with room is quarantined (not due for its
   * probe), or the probe of each is out.
   */
  usable(withRoom: number[]): number[] | undefined {
    const now = this.deps.clock();
    if (withRoom.length === 0) {
      const only = [...this.sims.values()][0];
      return only && blocked(only, now) ? undefined : [];
    }
    const out = withRoom.filter((slot) => {
      const health = this.sims.get(slot);
      return !health || !blocked(health, now);
    });
    return out.length > 0 ? out : undefined;
  }

  /** Whether every SIM of the phone is quarantined (not due for its probe): it claims nothing. */
  allBlocked(): boolean {
    const now = this.deps.clock();
    return this.sims.size > 0 && [...this.sims.values()].every((h) => blocked(h, now));
  }

  /** The slot whose probe is due, of those given; the SIM choice sends the next SMS there. */
  probeSlot(withRoom: readonly number[]): number | undefined {
    const now = this.deps.clock();
    return withRoom.find((slot) => {
      const health = this.sims.get(slot);
      return health !== undefined && probeDue(health, now);
    });
  }

  /** How long until the first quarantined SIM's probe is due (for the wait of a phone that may use none). */
  msUntilProbe(): number {
    const now = this.deps.clock();
    const dues = [...this.sims.values()].filter((h) => h.state === 'quarantined').map((h) => (h.probeAfter ?? now) - now);
    return dues.length > 0 ? Math.max(0, Math.min(...dues)) : Infinity;
  }

  /** The SIM of `slot` (0, or a slot the phone did not list: its one SIM, when it has one). */
  private simOf(slot: number | undefined): SimHealth | undefined {
    const found = slot ? this.sims.get(slot) : undefined;
    return found ?? (this.sims.size === 1 ? [...this.sims.values()][0] : undefined);
  }

  /** An SMS handed through `slot` (0: the phone's one SIM): when its probe is due, this SMS is it. */
  handed(slot: number, messageId: string): void {
    const health = this.simOf(slot);
    if (!health) return;
    const now = this.deps.clock();
    if (!probeDue(health, now)) return;
    const next = probing(health, now);
    this.sims.set(next.slot, next);
    this.probes.set(next.slot, messageId);
    this.log.info({ sim: next.slot }, 'probe message handed to a quarantined SIM');
    this.deps.simHealthWriter.changed(this.device.device_id, next);
  }

  /** Counts a report of a message handed to this phone through `slot` (0: its one SIM). */
  report(report: AgentReport, slot: number): void {
    const result = resultOf(report);
    if (!result) return;
    const counted = (this.counted ??= new Map<string, number>());
    const bit = report.status === 'sent' ? COUNTED_BIT.sent : COUNTED_BIT.failed;
    const seen = counted.get(report.message_id) ?? 0;
    if (seen & bit) return;
    counted.delete(report.message_id);
    counted.set(report.message_id, seen | bit);
    if (counted.size > COUNTED_KEPT) counted.delete(counted.keys().next().value!);
    const health = this.simOf(report.sim ?? slot);
    if (!health) return;
    // While probing, only the probe's own result decides (one of an SMS handed before counts, and changes nothing).
    const probe = health.state === 'probing' && this.probes.get(health.slot) === report.message_id;
    if (probe) this.probes.delete(health.slot);
    const { health: next, change } =
      health.state === 'probing' && !probe
        ? { health: { ...health, recent: [...health.recent, result].slice(-this.settings.window) }, change: undefined }
        : recordResult(health, result, this.settings, this.deps.clock());
    this.sims.set(next.slot, next);
    if (!change) {
      // A full window of one cause (a SIM that only sends) stays the same: nothing to write.
      if (!sameResults(health.recent, next.recent)) this.deps.simHealthWriter.note(this.device.device_id, next);
      return;
    }
    this.deps.simHealthWriter.changed(this.device.device_id, next);
    this.announce(change, next);
  }

  private announce(change: HealthChange, health: SimHealth): void {
    const fields = { sim: health.slot, reason: health.reason, recent: health.recent };
    if (change === 'released') {
      releases.add(1, { how: 'probe' });
      this.log.info(fields, 'SIM released: its probe message was sent');
      this.publish('device.recovered', health, 'probe');
      return;
    }
    quarantines.add(1, { reason: health.reason, extended: String(change === 'extended') });
    this.log.warn(fields, change === 'quarantined' ? 'SIM quarantined' : 'SIM quarantine extended: its probe failed');
    if (change === 'quarantined') this.publish('device.degraded', health, 'quarantined');
    if (this.allBlocked()) void this.releaseIfDue(true);
  }

  private publish(kind: SimEventKind, health: SimHealth, how: string): void {
    this.deps
      .publishSimEvent(kind, this.device, health, how)
      .catch((err: unknown) => this.log.warn({ err, sim: health.slot }, `${kind} not published`));
  }

  /**
   * While every SIM is quarantined, the messages queued on the phone go to the client's other
   * phones (at the quarantine, then every QUARANTINED_RELEASE_MS for those queued meanwhile).
   */
  async releaseIfDue(now = false): Promise<void> {
    const at = this.deps.clock();
    if (!now && at - this.lastRelease < QUARANTINED_RELEASE_MS) return;
    this.lastRelease = at;
    await this.deps
      .releaseQuarantined(this.device)
      .catch((err: unknown) => this.log.warn({ err }, "the quarantined phone's messages not released; tried again later"));
  }
}
