import type { Logger, Nats, PromiseClient } from '@smsgw/platform';
import type { scheduler } from '@smsgw/proto';

/** The payload of an OTP's fallback timer. */
export interface OtpFallbackPayload {
  message_id: string;
}

export const otpFallbackTimerKey = (messageId: string) => `otp-fallback:${messageId}`;

/**
 * The scheduler's timers of the OTP delivery fallback: `fallback_after` seconds after an OTP's SMS
 * was queued, `timers.message.otp-fallback` fires and, if the SMS is still not delivered, it goes
 * once through another phone (use-cases/otp-fallback.use-case.ts). Without the scheduler the SMS
 * only loses that chance; its failure fallback still holds.
 */
export class OtpFallbackTimers {
  constructor(
    private readonly client: PromiseClient<scheduler.SchedulerServiceClient>,
    private readonly nats: Nats,
    private readonly log: Logger,
  ) {}

  /** Creates the timer (once per message: the key makes a repeat the same timer); failures are logged, never thrown. */
  async schedule(messageId: string, fireAt: Date): Promise<void> {
    const payload: OtpFallbackPayload = { message_id: messageId };
    try {
      await this.client.createTimer({
        key: otpFallbackTimerKey(messageId),
        fireAt: fireAt.toISOString(),
        subject: this.nats.names.timer('message.otp-fallback'),
        payload: Buffer.from(JSON.stringify(payload)),
      });
    } catch (err) {
      this.log.warn({ err, message_id: messageId }, 'creating the fallback timer of an OTP failed; only a failure will make it fall back');
    }
  }
}
