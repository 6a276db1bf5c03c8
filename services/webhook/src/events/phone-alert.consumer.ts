import type { JsMsg } from '@nats-io/jetstream';
import { decodeJsonPayload, runDurableConsumer, type DurableConsumer, type Nats, type PublicEvent } from '@smsgw/platform';
import { mailPhoneAlert, type PhoneAlertDeps } from '../use-cases/phone-alert.use-case';

export const PHONE_ALERTS_DURABLE = 'webhook-phone-alerts';
export const OFFLINE_ALERTS_DURABLE = 'webhook-offline-alerts';

/** The phone warnings mailed to the owner, each on its durable. */
export type PhoneAlertKind = 'device.battery_low' | 'device.offline';

/**
 * The owner's warning e-mail of each `device.battery_low` or `device.offline` (issue 38), on a durable of its own
 * beside the event consumer, which delivers the same event to the endpoints subscribed to it. An
 * event is acknowledged once its e-mail is sent (or has nowhere to go); an SMTP failure brings it again.
 */
export class PhoneAlertConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly deps: PhoneAlertDeps,
    private readonly kind: PhoneAlertKind = 'device.battery_low',
    private readonly durable: string = PHONE_ALERTS_DURABLE,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      { stream: names.eventsStream, durable: this.durable, filterSubject: names.event(this.kind), log: this.deps.log },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    const event = decodeJsonPayload<PublicEvent>(msg.data);
    if (!event || event.event !== this.kind || typeof event.event_id !== 'string' || typeof event.routing?.client_id !== 'string') {
      this.deps.log.warn({ subject: msg.subject }, 'malformed phone alert dropped');
      msg.term();
      return;
    }
    try {
      await mailPhoneAlert(this.deps, event as PublicEvent);
      msg.ack();
    } catch (err) {
      this.deps.log.error({ err, event_id: event.event_id }, 'the phone alert e-mail failed; it will be tried again');
      msg.nak(30_000);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
