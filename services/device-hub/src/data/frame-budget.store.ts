import { FixedWindowCounter, type LimiterRedis } from '@smsgw/platform';
import type { BudgetKind, Budgets } from '../domain/frame-budgets';

export interface BudgetVerdict {
  allowed: boolean;
  /** Refused: how long until the window that refused ends (ms). */
  retryAfterMs: number;
  /** Refused: whose budget was full. */
  by?: 'device' | 'client';
}

type Device = { device_id: string; client_id: string };

/**
 * The frames each phone and each client sent in the current window, in Redis (a fixed window per
 * key, `hub-budget:<kind>:device:<id>` and `hub-budget:<kind>:client:<id>`), so that every replica
 * counts against the same budget: a phone that reconnects to another replica finds its count
 * there. This replica also remembers which phones and clients are past a budget until their window
 * ends, so that their frames are refused without asking Redis, on a new connection too.
 */
export class FrameBudgetStore {
  private readonly counter: FixedWindowCounter;
  /** `<kind> <device or client id>` -> when its refusal ends (ms); an entry goes once past. */
  private readonly blocked = new Map<string, { until: number; by: 'device' | 'client' }>();

  constructor(
    redis: LimiterRedis,
    readonly budgets: Budgets,
    private readonly clock: () => number,
  ) {
    this.counter = new FixedWindowCounter(redis, { windowMs: budgets.windowMs });
  }

  /** Counts `weight` on the device's and its client's budget of `kind`, or nothing when either has no room. */
  async take(kind: BudgetKind, device: Device, weight: number): Promise<BudgetVerdict> {
    const known = this.refusal(kind, device);
    if (known) return known;
    const { device: perDevice, client: perClient } = this.budgets[kind];
    const taken = await this.counter.take(
      [`hub-budget:${kind}:device:${device.device_id}`, `hub-budget:${kind}:client:${device.client_id}`],
      [perDevice, perClient],
      weight,
    );
    if (taken.allowed) return { allowed: true, retryAfterMs: 0 };
    const by = taken.refusedBy === 1 ? 'client' : 'device';
    const retryAfterMs = Math.max(1, taken.ttlMs);
    if (this.blocked.size >= 1000) this.forgetPast();
    this.blocked.set(`${kind} ${by === 'client' ? device.client_id : device.device_id}`, { until: this.clock() + retryAfterMs, by });
    return { allowed: false, retryAfterMs, by };
  }

  private forgetPast(): void {
    const now = this.clock();
    for (const [key, block] of this.blocked) if (block.until <= now) this.blocked.delete(key);
  }

  /** The refusal this replica knows of for the device or its client (no Redis call), if any. */
  refusal(kind: BudgetKind, device: Device): BudgetVerdict | undefined {
    const now = this.clock();
    for (const id of [device.device_id, device.client_id]) {
      const key = `${kind} ${id}`;
      const block = this.blocked.get(key);
      if (!block) continue;
      if (block.until > now) return { allowed: false, retryAfterMs: block.until - now, by: block.by };
      this.blocked.delete(key);
    }
    return undefined;
  }
}
