import { newId, type Nats, type PublicEvent } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { Telemetry } from '../domain/telemetry';

/**
 * Publishes `device.battery_low` (issue 38) in JetStream, its event id as the Nats-Msg-Id: the
 * webhook service delivers it to the endpoints subscribed to it (an opt-in kind) and e-mails the
 * owner. Once per low-battery episode: the caller has opened the episode.
 */
export class PhoneAlertPublisher {
  constructor(private readonly nats: Pick<Nats, 'js' | 'names'>) {}

  async batteryLow(device: DeviceRow, telemetry: Telemetry, at: Date): Promise<void> {
    const event: PublicEvent = {
      event: 'device.battery_low',
      event_id: newId('evt'),
      timestamp: at.toISOString(),
      data: {
        device_id: device.device_id,
        client_id: device.client_id,
        name: device.name,
        battery: telemetry.battery ?? null,
        charging: telemetry.charging,
        at: at.toISOString(),
      },
      routing: { client_id: device.client_id, mode: 'live' },
    };
    await this.nats.js.publish(this.nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });
  }
}
