import type { Logger } from '@smsgw/platform';
import { hasCountLimits, longestLimitedWindowMs, room, type DeviceLimits, type Room } from '../domain/limits';
import { pacingDelay } from '../domain/pairing';
import type { UsageStore } from '../data/usage.store';

const LIMITS_MAX_AGE_MS = 60_000;

export interface PacerDeps {
  usage: Pick<UsageStore, 'record' | 'sentSince'>;
  /** The hub's default pause between two SMS (a device without its own). */
  defaults: { minIntervalMs: number; maxIntervalMs: number };
  clock: () => number;
}

/**
 * One phone's pace: whether its limits and sending hours leave it room to take an SMS now (else
 * how long to wait), the pause after each SMS, and the record of what it acknowledged. Its limits
 * are replaced at a reload order.
 */
export class DispatchPacer {
  private loadedAt: number;

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

  /** Whether the limits were read more than a minute ago (a reload order may have been lost). */
  stale(): boolean {
    return this.deps.clock() - this.loadedAt > LIMITS_MAX_AGE_MS;
  }

  /** Room now, or the wait until some comes; the usage is read only when a count limit is set. */
  async room(): Promise<Room> {
    const now = this.deps.clock();
    const sent = hasCountLimits(this.limits)
      ? await this.deps.usage.sentSince(this.deviceId, now - longestLimitedWindowMs(this.limits))
      : [];
    return room(now, this.limits, sent);
  }

  /**
   * 0 when the phone may take an SMS now; else how long to sleep before checking again: until
   * room comes, at most `recheckMs`; 1 to 2 s when the check failed (nothing is claimed blind).
   */
  async waitMs(recheckMs: number, log: Logger): Promise<number> {
    try {
      const found = await this.room();
      if (found.ok) return 0;
      log.debug({ wait_ms: found.waitMs, reason: found.reason }, 'no room to send; waiting');
      return Math.min(found.waitMs + 5, recheckMs);
    } catch (err) {
      log.warn({ err }, 'checking the room to send failed; retrying');
      return 1000 + Math.random() * 1000;
    }
  }

  /** The pause after an SMS: the device's own interval, else the hub's default. */
  pauseMs(): number {
    const { minIntervalMs, maxIntervalMs } = this.limits;
    if (minIntervalMs > 0 || maxIntervalMs > 0) return pacingDelay(minIntervalMs, maxIntervalMs);
    return pacingDelay(this.deps.defaults.minIntervalMs, this.deps.defaults.maxIntervalMs);
  }

  /** Counts an SMS the phone acknowledged against its limits. */
  async acknowledged(messageId: string): Promise<void> {
    await this.deps.usage.record(this.deviceId, messageId, this.deps.clock());
  }
}
