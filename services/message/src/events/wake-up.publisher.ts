import type { Nats } from '@smsgw/platform';
import type { MessageRow, PlacedMessage } from '../domain/message-row';

/**
 * Hints that due messages wait: to the hub holding each phone that had
 * nothing to claim (a busy phone's hub claims again by itself, and a
 * periodic sweep covers a lost hint), or to the simulated device of test keys.
 * Held messages (a paused campaign's) wait for nothing. Core NATS, no reply:
 * a hint lost costs a sweep's delay, never a message.
 */
export class WakeUpPublisher {
  constructor(private readonly nats: Nats) {}

  wake(placed: PlacedMessage[]): void {
    const now = new Date();
    const due = placed.filter(({ row }) => row.status === 'queued' && !row.held && (!row.scheduled_at || row.scheduled_at <= now));
    this.wakeDevices(due.filter((p) => p.row.mode === 'live' && p.deviceWasIdle).map((p) => p.row));
    if (due.some((p) => p.row.mode === 'test')) this.nats.nc.publish(this.nats.names.testWake);
  }

  /**
   * Hints that messages held until now (a resumed campaign's) wait: to the
   * hub of each of their phones, busy or not, to every phone of the client
   * for those in the fleet, or to the simulated device of test keys.
   */
  wakeResumed(rows: MessageRow[]): void {
    const now = new Date();
    const due = rows.filter((r) => r.status === 'queued' && (!r.scheduled_at || r.scheduled_at <= now));
    const live = due.filter((r) => r.mode === 'live');
    this.wakeDevices(live.filter((r) => !r.fleet));
    const opened = new Map<string, number>();
    for (const r of live.filter((r) => r.fleet)) opened.set(r.client_id, (opened.get(r.client_id) ?? 0) + 1);
    for (const [clientId, count] of opened) this.wakeClient(clientId, count);
    if (due.some((r) => r.mode === 'test')) this.nats.nc.publish(this.nats.names.testWake);
  }

  /**
   * A hint to each device of the rows: one message per client, `dispatch.wake.<client>.<device>`
   * for one device, `dispatch.wake.<client>.many` naming them all for several (a send-bulk spread
   * over 50 idle phones is one message, not 50).
   */
  private wakeDevices(rows: ReadonlyArray<Pick<MessageRow, 'client_id' | 'device_id'>>): void {
    const byClient = new Map<string, Set<string>>();
    for (const r of rows) {
      const devices = byClient.get(r.client_id);
      if (devices) devices.add(r.device_id);
      else byClient.set(r.client_id, new Set([r.device_id]));
    }
    for (const [clientId, devices] of byClient) {
      if (devices.size === 1) this.nats.nc.publish(this.nats.names.wake(clientId, [...devices][0]!));
      else this.nats.nc.publish(this.nats.names.wakeMany(clientId), [...devices].join(','));
    }
  }

  /**
   * Hints to the phones of a client that `opened` messages were opened to its fleet: each hub
   * replica wakes about twice as many of its idle phones of that client (not all of a large
   * fleet; see the hub's SessionRegistry).
   */
  wakeClient(clientId: string, opened: number): void {
    this.nats.nc.publish(this.nats.names.wakeClient(clientId), String(Math.max(1, opened)));
  }
}
