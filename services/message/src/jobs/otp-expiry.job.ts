import { FAILURE_MESSAGES, timerLoop, type Logger, type TimerLoop } from '@smsgw/platform';
import type { MessageRepository } from '../data/message.repository';
import type { SmsEventPublisher } from '../events/sms-event.publisher';

/**
 * Fails the OTP messages that no phone took before their OTP expired
 * (`failed`, error EXPIRED, with their `sms.failed` event). Every replica
 * runs it; rows are taken with SKIP LOCKED, so replicas share the work.
 */
export class OtpExpiryJob {
  private readonly loop: TimerLoop;
  private stopped = false;

  constructor(
    private readonly repo: MessageRepository,
    private readonly publisher: SmsEventPublisher,
    intervalMs: number,
    private readonly log: Logger,
  ) {
    this.loop = timerLoop({ name: 'otp-expiry', intervalMs, tick: () => this.runOnce(), log });
  }

  start(): void {
    this.loop.start();
  }

  /** One sweep; returns how many messages it failed. */
  async runOnce(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const failed = await this.repo.expireOtpMessages(FAILURE_MESSAGES.EXPIRED, async (rows) => {
          for (const row of rows) await this.publisher.publish(row);
        });
        total += failed;
        if (failed < 500 || this.stopped) break;
      }
      if (total > 0) this.log.info({ expired: total }, 'expired OTP messages failed');
    } catch (err) {
      this.log.error({ err }, 'OTP expiry sweep failed; next attempt at the next interval');
    }
    return total;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }
}
