import type { Logger, Nats, PromiseClient } from '@smsgw/platform';
import type { scheduler } from '@smsgw/proto';
import type { MessageRow } from '../domain/message-row';

/** The payload of a scheduled message's timer. */
export interface DueTimerPayload {
  message_id: string;
  device_id: string;
  mode: 'live' | 'test';
  /** Its client (timers made before the fleet have none): a message moved meanwhile may go to any of its phones. */
  client_id?: string;
}

export const dueTimerKey = (messageId: string) => `msg-due:${messageId}`;

/**
 * The scheduler's timers of scheduled messages: at `scheduled_at` the
 * scheduler publishes `timers.message.due` and the timer consumer wakes the
 * device's hub. The message row is committed first and is the truth: it is
 * not claimable before its `due_at` whatever happens here. If the scheduler
 * cannot be reached, the message still goes out once due, at the hub's next
 * sweep (DISPATCH_SWEEP_MS, up to DISPATCH_IDLE_SWEEP_MAX_MS for an idle phone) or when its phone
 * connects, only not to the second.
 */
export class ScheduledSends {
  constructor(
    private readonly client: PromiseClient<scheduler.SchedulerServiceClient>,
    private readonly nats: Nats,
    private readonly log: Logger,
  ) {}

  /** Creates the timers of the messages scheduled in the future; failures are logged, never thrown. */
  async schedule(rows: MessageRow[]): Promise<void> {
    const now = Date.now();
    const scheduled = rows.filter((r) => r.status === 'queued' && r.scheduled_at && r.scheduled_at.getTime() > now);
    await Promise.all(
      scheduled.map(async (row) => {
        const payload: DueTimerPayload = { message_id: row.message_id, device_id: row.device_id, mode: row.mode, client_id: row.client_id };
        try {
          await this.client.createTimer({
            key: dueTimerKey(row.message_id),
            fireAt: row.scheduled_at!.toISOString(),
            subject: this.nats.names.timer('message.due'),
            payload: Buffer.from(JSON.stringify(payload)),
          });
        } catch (err) {
          this.log.warn(
            { err, message_id: row.message_id },
            'scheduling the timer of a message failed; it will go out at the next sweep after its time',
          );
        }
      }),
    );
  }

  /** Cancels the timer of a cancelled scheduled message; a timer left behind only wakes a hub for nothing. */
  async cancel(row: MessageRow): Promise<void> {
    if (!row.scheduled_at) return;
    try {
      await this.client.cancelTimer({ key: dueTimerKey(row.message_id) });
    } catch (err) {
      this.log.warn({ err, message_id: row.message_id }, 'cancelling the timer of a message failed; it will fire to no effect');
    }
  }
}
