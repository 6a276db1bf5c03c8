import { newId, type Nats, type PublicEvent } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { OfflineCandidate } from '../data/fleet-settings.repository';
import type { Telemetry } from '../domain/telemetry';

/**
 * Publishes `device.battery_low` and `device.offline` (issue 38) in JetStream, its event id as the Nats-Msg-Id: the
 * webhook service delivers it to the endpoints subscribed to it (an opt-in kind) and e-mails the
 * owner. Once per low-battery episode or offline spell: the caller has claimed it.
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

  async offline(phone: OfflineCandidate, offlineSince: Date, at: Date): Promise<void> {
    const event: PublicEvent = {
      event: 'device.offline',
      event_id: newId('evt'),
      timestamp: at.toISOString(),
      data: {
        device_id: phone.device_id,
        client_id: phone.client_id,
        name: phone.name,
        offline_since: offlineSince.toISOString(),
        threshold_seconds: phone.alert_seconds,
      },
      routing: { client_id: phone.client_id, mode: 'live' },
    };
    await this.nats.js.publish(this.nats.names.event(event.event), JSON.stringify(event), { msgID: event.event_id });
  }
}
