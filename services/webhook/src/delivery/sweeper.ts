import { timerLoop, type Logger, type TimerLoop } from '@smsgw/platform';
import type { DeliveryJob, DeliveryRepository } from '../data/delivery.repository';
import type { AlertMailer } from './alerts';

/** How late an attempt must be before the sweep takes it: its timer normally claims it at its time. */
const OVERDUE_GRACE_MS = 10_000;
/** A dropped delivery's alert is sent inline; the sweep sends those still due after this long. */
const ALERT_GRACE_MS = 60_000;

/**
 * The safety net, every `intervalMs` on every replica: takes deliveries whose attempt is
 * overdue and unheld (a replica died mid-attempt, a retry timer could not be
 * created, a queue was full), and sends alerts still due. Meanwhile it keeps
 * the leases of the deliveries this replica holds.
 */
export class Sweeper {
  private readonly sweeps: TimerLoop;
  private readonly renewer: TimerLoop;

  constructor(
    private readonly repo: DeliveryRepository,
    private readonly dispatcher: { enqueue(job: DeliveryJob): boolean; heldIds(): string[]; size: number },
    private readonly alerts: AlertMailer,
    private readonly options: { intervalMs: number; maxInFlight: number; leaseMs: number },
    private readonly log: Logger,
  ) {
    this.sweeps = timerLoop({ name: 'webhook-sweep', intervalMs: options.intervalMs, tick: () => this.sweep(), log });
    // Leases are renewed well within their length, whatever the sweep's interval.
    this.renewer = timerLoop({
      name: 'webhook-lease-renewal',
      intervalMs: options.leaseMs / 3,
      tick: () =>
        this.repo.renewLeases(this.dispatcher.heldIds()).catch((err: unknown) => this.log.warn({ err }, 'renewing delivery leases failed')),
      log,
    });
  }

  start(): void {
    this.sweeps.start();
    this.renewer.start();
  }

  async sweep(): Promise<void> {
    try {
      // Take no more than there is room for: what is left stays for the next sweep or another replica.
      const room = Math.max(0, this.options.maxInFlight * 4 - this.dispatcher.size);
      if (room > 0) {
        const overdue = await this.repo.claimOverdue(OVERDUE_GRACE_MS, Math.min(room, 500));
        for (const job of overdue) this.dispatcher.enqueue(job);
        if (overdue.length > 0) this.log.info({ deliveries: overdue.length }, 'overdue webhook deliveries taken by the sweep');
      }
      await this.alerts.sendDue(ALERT_GRACE_MS);
    } catch (err) {
      this.log.warn({ err }, 'webhook sweep failed');
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.sweeps.stop(), this.renewer.stop()]);
  }
}
