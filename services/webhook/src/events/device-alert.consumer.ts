import type { JsMsg } from '@nats-io/jetstream';
import { decodeJsonPayload, runDurableConsumer, type DurableConsumer, type Nats, type PublicEvent } from '@smsgw/platform';
import { mailDeviceAlert, type DeviceAlertDeps } from '../use-cases/device-alert.use-case';

export const DEVICE_ALERTS_DURABLE = 'webhook-device-alerts';

/**
 * The owner's alert e-mail of each `device.degraded` (`events.device.degraded`, a SIM
 * quarantined), on a durable of its own beside the event consumer, which delivers the same event
 * to the endpoints subscribed to it. Acknowledged once its e-mail is sent (or has nowhere to go);
 * an SMTP failure brings it again later.
 */
export class DeviceAlertConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly deps: DeviceAlertDeps,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      { stream: names.eventsStream, durable: DEVICE_ALERTS_DURABLE, filterSubject: names.event('device.degraded'), log: this.deps.log },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    const event = decodeJsonPayload<PublicEvent>(msg.data);
    if (!event || event.event !== 'device.degraded' || typeof event.event_id !== 'string' || typeof event.routing?.client_id !== 'string') {
      this.deps.log.warn({ subject: msg.subject }, 'malformed device.degraded dropped');
      msg.term();
      return;
    }
    try {
      await mailDeviceAlert(this.deps, event as PublicEvent);
      msg.ack();
    } catch (err) {
      this.deps.log.error({ err, event_id: event.event_id }, 'the alert e-mail of a quarantined SIM failed; it will be tried again');
      msg.nak(30_000);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
