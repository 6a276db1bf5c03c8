import { metrics } from '@opentelemetry/api';
import { headers, type Subscription } from '@nats-io/transport-node';
import type { Logger, Nats } from '@smsgw/platform';
import type { TimerRepository, TimerRow } from '../data/timer.repository';
import { fireMessageId, sleepMs } from '../domain/timers';

export interface FiringSettings {
  leaseMs: number;
  maxSleepMs: number;
  batchSize: number;
  retryMs: number;
}

const meter = metrics.getMeter('smsgw-scheduler');
const firedCounter = meter.createCounter('smsgw.scheduler.timers.fired', { description: 'Timers published to JetStream' });
const failedCounter = meter.createCounter('smsgw.scheduler.timers.publish_failed', {
  description: 'Timer publishes that failed and will be retried',
});
const lateness = meter.createHistogram('smsgw.scheduler.timer.lateness.milliseconds', {
  description: 'Publish acknowledged minus fire_at, first attempts only',
  unit: 'ms',
});

/**
 * Fires due timers. Each replica sleeps (one setTimeout) until the next
 * pending timer is due, by the database's clock, or at most `maxSleepMs`;
 * a wake-up hint on core NATS (a timer due sooner was created) brings that
 * moment forward. At the moment, it claims due timers in batches (FOR
 * UPDATE SKIP LOCKED: replicas share them), publishes each to JetStream with
 * its `Nats-Msg-Id`, and marks those acknowledged as fired.
 */
export class TimerFirer {
  private timer?: NodeJS.Timeout;
  /** When the armed timeout fires, by this process's clock. */
  private wakeAtMs = Number.POSITIVE_INFINITY;
  private round?: Promise<void>;
  /** A hint arrived during a round: look again at once when it ends. */
  private again = false;
  private stopped = false;
  private sub?: Subscription;

  constructor(
    private readonly repo: TimerRepository,
    private readonly nats: Nats,
    private readonly settings: FiringSettings,
    /** Runs before each round (the periodic jobs' timers are kept there). */
    private readonly beforeRound: () => Promise<void>,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.sub = this.nats.nc.subscribe(this.nats.names.schedulerWake, {
      callback: (_err, msg) => this.hint(Number(msg.string())),
    });
    this.kick();
  }

  /** A timer due at `atMs` (epoch ms) was created somewhere. */
  hint(atMs: number): void {
    if (this.stopped) return;
    if (this.round) {
      this.again = true;
      return;
    }
    if (!Number.isFinite(atMs)) this.kick();
    else if (atMs < this.wakeAtMs) this.arm(atMs - Date.now());
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    const delay = Math.max(0, delayMs);
    this.wakeAtMs = Date.now() + delay;
    this.timer = setTimeout(() => this.kick(), delay);
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.round) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.wakeAtMs = Number.POSITIVE_INFINITY;
    this.again = false;
    this.round = this.runRound().then(
      (sleep) => this.afterRound(sleep),
      (err: unknown) => {
        this.log.error({ err }, 'firing timers failed; trying again shortly');
        this.afterRound(this.settings.retryMs);
      },
    );
  }

  private afterRound(sleep: number): void {
    this.round = undefined;
    if (this.stopped) return;
    if (this.again) this.kick();
    else this.arm(sleep);
  }

  /** Fires everything due; returns how long to sleep. */
  private async runRound(): Promise<number> {
    await this.beforeRound();
    for (;;) {
      if (this.stopped) return 0;
      const claimed = await this.repo.claimDue(this.settings.batchSize, this.settings.leaseMs);
      if (claimed.length > 0) await this.fire(claimed);
      if (claimed.length < this.settings.batchSize) break;
    }
    return sleepMs(await this.repo.nextDueInMs(), this.settings.maxSleepMs);
  }

  private async fire(claimed: TimerRow[]): Promise<void> {
    const results = await Promise.allSettled(
      claimed.map((t) => {
        const h = headers();
        h.set('Smsgw-Timer-Key', t.key);
        h.set('Smsgw-Timer-Fire-At', t.fire_at.toISOString());
        // The fire continues the trace of the call that created the timer.
        if (t.traceparent) h.set('traceparent', t.traceparent);
        return this.nats.js.publish(t.subject, t.payload, { msgID: fireMessageId(t.key, t.fire_at), headers: h });
      }),
    );
    const now = Date.now();
    const fired: string[] = [];
    const failed: string[] = [];
    let maxLateMs = 0;
    results.forEach((r, i) => {
      const t = claimed[i]!;
      if (r.status === 'fulfilled') {
        fired.push(t.timer_id);
        if (t.attempts === 1) {
          const late = now - t.fire_at.getTime();
          lateness.record(late);
          maxLateMs = Math.max(maxLateMs, late);
        }
      } else {
        failed.push(t.timer_id);
        this.log.warn(
          { err: r.reason as Error, timer_id: t.timer_id, attempt: t.attempts },
          'publishing a timer failed; it will be retried',
        );
      }
    });
    await this.repo.markFired(fired);
    await this.repo.retryLater(failed, this.settings.retryMs);
    firedCounter.add(fired.length);
    if (failed.length > 0) failedCounter.add(failed.length);
    this.log.debug({ fired: fired.length, failed: failed.length, max_lateness_ms: maxLateMs }, 'timers fired');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.sub?.unsubscribe();
    await this.round;
  }
}
