// The budgets of one phone's connection on its `ack` and `report` frames (PROTOCOL.md §3, budgets):
// counted in Redis by chunks, so that a phone at the hub's pace costs a Redis call every few
// frames, not one per frame.
import { counter, type LogSink } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { FrameBudgetStore } from '../data/frame-budget.store';
import type { BudgetKind } from '../domain/frame-budgets';

export const framesRefused = counter(
  'hub.frames_refused',
  "Frames of phones refused past a budget (not stored; the phone sends them again), by frame and whose budget was full (the phone's, its client's, or frames too far ahead of the count in Redis)",
);

/** Frames counted in Redis ahead of need, so that a phone at the hub's pace takes a chunk every few frames. */
export const BUDGET_CHUNK = 10;

export interface FrameBudgetDeps {
  budgets: FrameBudgetStore;
  clock: () => number;
}

/** One kind's allowance on this connection. */
class Allowance {
  /** Frames counted in Redis for this connection so far. */
  granted = 0;
  /** Frames let through so far. */
  spent = 0;
  taking = false;
  /** Refused until then (the window that refused ends). */
  blockedUntil = 0;
  by: 'device' | 'client' = 'device';
}

let lastFailureLog = 0;

/**
 * Whether an `ack` or `report` frame of this connection is within its phone's and its client's
 * budgets. The decision is taken at once, from what the connection counted in Redis beforehand
 * (BUDGET_CHUNK frames ahead of need); frames beyond it pass while Redis counts them, up to a tenth
 * of the phone's budget (a phone that reconnects sends all its pending reports at once). So the
 * budgets hold across replicas to within that per connection. A frame past a budget is dropped: a
 * report is sent again by the phone until `report_ack`; the ack the dispatch loop waits for
 * (`awaited`) always passes, so that a message the phone has is never offered elsewhere. When
 * Redis fails, frames pass (the SMS path goes on).
 */
export class FrameBudget {
  private ack?: Allowance;
  private report?: Allowance;

  constructor(
    private readonly device: Pick<DeviceRow, 'device_id' | 'client_id'>,
    private readonly deps: FrameBudgetDeps,
    private readonly log: LogSink,
    /** The message whose ack the connection waits for now, if any. */
    private readonly awaited: () => string | undefined,
  ) {}

  /** False when the frame is an `ack` or a `report` past a budget: drop it. */
  admits(frame: unknown): boolean {
    if (typeof frame !== 'object' || frame === null) return true;
    const { type, message_id: messageId } = frame as { type?: unknown; message_id?: unknown };
    if (type !== 'ack' && type !== 'report') return true;
    const allowance = type === 'ack' ? (this.ack ??= this.allowance(type)) : (this.report ??= this.allowance(type));
    if (type === 'ack' && messageId !== undefined && messageId === this.awaited()) {
      allowance.spent++;
      return true;
    }
    if (this.deps.clock() < allowance.blockedUntil) return this.refuse(type, allowance.by);
    if (allowance.spent + BUDGET_CHUNK / 2 >= allowance.granted) this.take(type, allowance);
    if (allowance.spent - allowance.granted >= this.ahead(type)) return this.refuse(type, 'ahead');
    allowance.spent++;
    return true;
  }

  /** A new allowance, refused from the start when this replica knows the phone or its client is past the budget. */
  private allowance(kind: 'ack' | 'report'): Allowance {
    const allowance = new Allowance();
    const known = this.deps.budgets.refusal(kind, this.device);
    if (known) {
      allowance.blockedUntil = this.deps.clock() + known.retryAfterMs;
      allowance.by = known.by ?? 'device';
    }
    return allowance;
  }

  private ahead(kind: 'ack' | 'report'): number {
    return Math.max(BUDGET_CHUNK, Math.floor(this.deps.budgets.budgets[kind].device / 10));
  }

  private refuse(kind: BudgetKind, budget: 'device' | 'client' | 'ahead'): false {
    framesRefused.add(1, { frame: kind, budget });
    return false;
  }

  /** Counts in Redis what passed uncounted, and a chunk ahead. */
  private take(kind: 'ack' | 'report', allowance: Allowance): void {
    if (allowance.taking) return;
    allowance.taking = true;
    const weight = Math.max(0, allowance.spent - allowance.granted) + BUDGET_CHUNK;
    this.deps.budgets.take(kind, this.device, weight).then(
      (verdict) => {
        allowance.taking = false;
        if (verdict.allowed) {
          allowance.granted += weight;
          return;
        }
        // What passed ahead stays uncounted: the window is full, the next one starts afresh.
        allowance.spent = allowance.granted;
        allowance.blockedUntil = this.deps.clock() + verdict.retryAfterMs;
        allowance.by = verdict.by ?? 'device';
        this.log.warn({ frame: kind, budget: allowance.by, retry_after_ms: verdict.retryAfterMs }, 'frames past the budget: dropped');
      },
      (err: unknown) => {
        allowance.taking = false;
        allowance.granted += weight;
        const now = this.deps.clock();
        if (now - lastFailureLog > 10_000) {
          lastFailureLog = now;
          this.log.warn({ err }, 'frame budgets unreadable (Redis): frames pass uncounted');
        }
      },
    );
  }
}
