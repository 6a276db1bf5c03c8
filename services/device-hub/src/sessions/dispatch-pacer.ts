import type { LogSink } from '@smsgw/platform';
import { hasCountLimits, longestLimitedWindowMs, room, type DeviceLimits } from '../domain/limits';
import { pacingDelay, retryWaitMs, roomWaitMs } from '../domain/dispatch-timing';
import type { UsageStore } from '../data/usage.store';

const LIMITS_MAX_AGE_MS = 60_000;

export interface PacerDeps {
  usage: Pick<UsageStore, 'record' | 'sentSince'>;
  /** The hub's default pause between two SMS (a device without its own). */
  defaults: { minIntervalMs: number; maxIntervalMs: number };
  clock: () => number;
}

/** Room now (with, for a phone with several SIMs, the slots that have some), or the wait until some comes. */
export type PhoneRoom = { ok: true; simsWithRoom: number[] } | { ok: false; waitMs: number; reason: 'limit' | 'hours' | 'pause' };

/**
 * One phone's pace: whether its limits and sending hours leave it room to take an SMS now (else
 * how long to wait), the pause after each SMS, and the record of what it acknowledged. Its limits
 * are replaced at a reload order. A phone that reported 2 or more SIMs has its limits' windows and
 * its pause per SIM (its sending hours stay the phone's): it has room when one of its SIMs has.
 */
export class DispatchPacer {
  private loadedAt: number;
  /** The phone's SIM slots when it has 2 or more (limits per SIM); else empty. */
  private slots: number[] = [];
  /** Per SIM: until when its pause after its last SMS lasts (ms since the epoch); made at the first such pause. */
  private pausedUntil?: Map<number, number>;

  constructor(
    private readonly deviceId: string,
    private limits: DeviceLimits,
    private readonly deps: PacerDeps,
  ) {
    this.loadedAt = deps.clock();
  }

  get current(): DeviceLimits {
    return this.limits;
  }

  reload(limits: DeviceLimits): void {
    this.limits = limits;
    this.loadedAt = this.deps.clock();
  }

  /** The phone's SIM slots, as its agent reported them; with 2 or more, the limits apply to each. */
  setSims(slots: readonly number[]): void {
    this.slots = slots.length >= 2 ? [...slots] : [];
  }

  /** Whether the limits were read more than a minute ago (a reload order may have been lost). */
  stale(): boolean {
    return this.deps.clock() - this.loadedAt > LIMITS_MAX_AGE_MS;
  }

  /** Room now, or the wait until some comes; the usage is read only when a count limit is set. */
  async room(): Promise<PhoneRoom> {
    const now = this.deps.clock();
    const sentSince = async (slot?: number) =>
      hasCountLimits(this.limits) ? this.deps.usage.sentSince(this.deviceId, now - longestLimitedWindowMs(this.limits), slot) : [];
    if (this.slots.length === 0) {
      const found = room(now, this.limits, await sentSince());
      return found.ok ? { ok: true, simsWithRoom: [] } : found;
    }
    const perSim = await Promise.all(
      this.slots.map(async (slot): Promise<PhoneRoom> => {
        const found = room(now, this.limits, await sentSince(slot));
        if (!found.ok) return found;
        const pause = (this.pausedUntil?.get(slot) ?? 0) - now;
        return pause > 0 ? { ok: false, waitMs: pause, reason: 'pause' } : { ok: true, simsWithRoom: [slot] };
      }),
    );
    const simsWithRoom = perSim.flatMap((r) => (r.ok ? r.simsWithRoom : []));
    if (simsWithRoom.length > 0) return { ok: true, simsWithRoom };
    const waits = perSim.filter((r): r is Extract<PhoneRoom, { ok: false }> => !r.ok);
    return waits.reduce((soonest, r) => (r.waitMs < soonest.waitMs ? r : soonest));
  }

  /**
   * `waitMs` 0 when the phone may take an SMS now (with the slots that have room, for a phone with
   * several SIMs); else how long to sleep before checking again: until room comes, at most
   * `recheckMs`; 1 to 2 s when the check failed (nothing is claimed blind).
   */
  async waitMs(recheckMs: number, log: LogSink): Promise<{ waitMs: number; simsWithRoom: number[] }> {
    try {
      const found = await this.room();
      if (found.ok) return { waitMs: 0, simsWithRoom: found.simsWithRoom };
      log.debug({ wait_ms: found.waitMs, reason: found.reason }, 'no room to send; waiting');
      return { waitMs: roomWaitMs(found.waitMs, recheckMs), simsWithRoom: [] };
    } catch (err) {
      log.warn({ err }, 'checking the room to send failed; retrying');
      return { waitMs: retryWaitMs(), simsWithRoom: [] };
    }
  }

  /**
   * What is left to sleep of the pause after an SMS handed through `slot` (0: none chosen) at
   * `handedAt`: the device's own interval, else the hub's default, counted from the hand, so that
   * the wait for the phone's ack is part of it (the pause is between two SMS handed, not between
   * an ack and the next SMS). With limits per SIM, the SIM pauses instead (0 is returned): the
   * phone's other SIMs may send meanwhile.
   */
  pauseAfter(slot: number, handedAt: number): number {
    const { minIntervalMs, maxIntervalMs } = this.limits;
    const pause =
      minIntervalMs > 0 || maxIntervalMs > 0
        ? pacingDelay(minIntervalMs, maxIntervalMs)
        : pacingDelay(this.deps.defaults.minIntervalMs, this.deps.defaults.maxIntervalMs);
    if (!this.slots.includes(slot)) return Math.max(0, handedAt + pause - this.deps.clock());
    (this.pausedUntil ??= new Map<number, number>()).set(slot, handedAt + pause);
    return 0;
  }

  /** How long the SIM's pause after its last SMS still lasts (0: over, or no pause per SIM). */
  pauseLeftMs(slot: number): number {
    return Math.max(0, (this.pausedUntil?.get(slot) ?? 0) - this.deps.clock());
  }

  /** Counts an SMS the phone acknowledged against its limits (and its SIM's, when one was chosen). */
  async acknowledged(messageId: string, slot = 0): Promise<void> {
    await this.deps.usage.record(this.deviceId, messageId, this.deps.clock(), slot);
  }
}
