import { newId, type Nats, type PublicEvent } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { LastSeenWriter } from '../data/last-seen.writer';
import { countsByCause, type SimHealth } from '../domain/sim-health';

export type DeviceEventKind = 'device.connected' | 'device.disconnected';

/**
 * Publishes a phone connecting or disconnecting as the public `device.*` event (the client's
 * webhooks and the dashboard's live list read them) in JetStream, its event id as the
 * Nats-Msg-Id, then marks the phone as seen now (written with the others' within a second).
 */
export class DeviceEventPublisher {
  constructor(
    private readonly nats: Pick<Nats, 'js' | 'names'>,
    private readonly lastSeen: Pick<LastSeenWriter, 'mark'>,
  ) {}

  async publish(kind: DeviceEventKind, device: DeviceRow, reason: string): Promise<void> {
    const at = new Date().toISOString();
    const event: PublicEvent = {
      event: kind,
      event_id: newId('evt'),
      timestamp: at,
      data: { device_id: device.device_id, client_id: device.client_id, name: device.name, at, reason },
      routing: { client_id: device.client_id, mode: 'live' },
    };
    await this.nats.js.publish(this.nats.names.event(kind), JSON.stringify(event), { msgID: event.event_id });
    this.lastSeen.mark(device.device_id);
  }

  /**
   * A SIM quarantined (`device.degraded`) or released (`device.recovered`): opt-in kinds, only the
   * endpoints that name them get them (docs/api/webhooks.md); the webhook service mails the owner
   * of a `device.degraded`.
   */
  async publishSim(kind: 'device.degraded' | 'device.recovered', device: DeviceRow, health: SimHealth, how: string): Promise<void> {
    const at = new Date().toISOString();
    const data: Record<string, unknown> = {
      device_id: device.device_id,
      client_id: device.client_id,
      name: device.name,
      at,
      sim: health.slot,
      state: health.state,
      // degraded: the threshold crossed; recovered: `probe` or `manual`.
      reason: kind === 'device.degraded' ? health.reason : how,
      recent_results: countsByCause(health.recent),
    };
    if (kind === 'device.degraded') data.probe_after = new Date(health.probeAfter ?? Date.now()).toISOString();
    const event: PublicEvent = {
      event: kind,
      event_id: newId('evt'),
      timestamp: at,
      data,
      routing: { client_id: device.client_id, mode: 'live' },
    };
    await this.nats.js.publish(this.nats.names.event(kind), JSON.stringify(event), { msgID: event.event_id });
  }
}
