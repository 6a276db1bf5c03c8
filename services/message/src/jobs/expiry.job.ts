import { FAILURE_MESSAGES, timerLoop, type Logger, type TimerLoop } from '@smsgw/platform';
import type { FleetRepository } from '../data/fleet.repository';
import type { MessageRepository } from '../data/message.repository';
import type { SmsEventPublisher } from '../events/sms-event.publisher';

/** Messages failed (and their events published) per transaction. */
const BATCH = 500;

/**
 * Fails the messages that no phone took before their expiry (a send's ttl,
 * an OTP's expiry), fleet ones too: `failed`, error EXPIRED, with their
 * `sms.failed` event; and erases the fallback copies of OTPs' texts past
 * their expiry (`fleet`). Every replica runs it; rows are taken with SKIP
 * LOCKED, so replicas share the work.
 */
export class ExpiryJob {
  private readonly loop: TimerLoop;
  private stopped = false;

  constructor(
    private readonly repo: MessageRepository,
    private readonly publisher: SmsEventPublisher,
    intervalMs: number,
    private readonly log: Logger,
    private readonly fleet?: FleetRepository,
  ) {
    this.loop = timerLoop({ name: 'expiry', intervalMs, tick: () => this.runOnce(), log });
  }

  start(): void {
    this.loop.start();
  }

  /** One sweep; returns how many messages it failed. */
  async runOnce(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const failed = await this.repo.expireMessages(
          FAILURE_MESSAGES.EXPIRED,
          async (rows) => {
            await Promise.all(rows.map((row) => this.publisher.publish(row)));
          },
          BATCH,
        );
        total += failed;
        if (failed < BATCH || this.stopped) break;
      }
      if (total > 0) this.log.info({ expired: total }, 'expired messages failed');
      // An OTP's fallback copy never outlives its expiry by more than a sweep.
      await this.fleet?.eraseExpiredOtpFallbacks();
    } catch (err) {
      this.log.error({ err }, 'expiry sweep failed; next attempt at the next interval');
    }
    return total;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }
}
