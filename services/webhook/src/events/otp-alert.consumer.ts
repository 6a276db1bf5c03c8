import type { JsMsg } from '@nats-io/jetstream';
import { decodeJsonPayload, runDurableConsumer, type DurableConsumer, type Nats, type PublicEvent } from '@smsgw/platform';
import { mailOtpAlert, type OtpAlertDeps } from '../use-cases/otp-alert.use-case';

export const OTP_ALERTS_DURABLE = 'webhook-otp-alerts';

/**
 * The owner's alert e-mail of each `otp.fraud_suspected` (`events.otp.fraud_suspected`), on a
 * durable of its own beside the event consumer, which delivers the same event to the endpoints
 * subscribed to it. An event is acknowledged once its e-mail is sent (or has nowhere to go); an
 * SMTP failure brings it again later.
 */
export class OtpAlertConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly deps: OtpAlertDeps,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      { stream: names.eventsStream, durable: OTP_ALERTS_DURABLE, filterSubject: names.event('otp.fraud_suspected'), log: this.deps.log },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    const event = decodeJsonPayload<PublicEvent>(msg.data);
    if (
      !event ||
      event.event !== 'otp.fraud_suspected' ||
      typeof event.event_id !== 'string' ||
      typeof event.routing?.client_id !== 'string'
    ) {
      this.deps.log.warn({ subject: msg.subject }, 'malformed otp.fraud_suspected dropped');
      msg.term();
      return;
    }
    try {
      await mailOtpAlert(this.deps, event as PublicEvent);
      msg.ack();
    } catch (err) {
      this.deps.log.error({ err, event_id: event.event_id }, 'the alert e-mail of suspected OTP pumping failed; it will be tried again');
      msg.nak(30_000);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
