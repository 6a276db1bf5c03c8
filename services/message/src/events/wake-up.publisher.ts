import type { Nats } from '@smsgw/platform';
import type { PlacedMessage } from '../data/message.repository';

/**
 * Hints that due messages wait: to the hub holding each phone that had
 * nothing to claim (a busy phone's hub claims again by itself, and a
 * periodic sweep covers a lost hint), or to the simulated device of test keys.
 * Core NATS, no reply: a hint lost costs a sweep's delay, never a message.
 */
export class WakeUpPublisher {
  constructor(private readonly nats: Nats) {}

  wake(placed: PlacedMessage[]): void {
    const now = new Date();
    const due = placed.filter(({ row }) => row.status === 'queued' && (!row.scheduled_at || row.scheduled_at <= now));
    for (const deviceId of new Set(due.filter((p) => p.row.mode === 'live' && p.deviceWasIdle).map((p) => p.row.device_id))) {
      this.nats.nc.publish(this.nats.names.wake(deviceId));
    }
    if (due.some((p) => p.row.mode === 'test')) this.nats.nc.publish(this.nats.names.testWake);
  }

  /** Hints to every phone of a client that a message was opened to its fleet. */
  wakeClient(clientId: string): void {
    this.nats.nc.publish(this.nats.names.wakeClient(clientId));
  }
}
