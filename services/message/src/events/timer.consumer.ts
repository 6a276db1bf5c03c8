import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { consumeTraced, handleJobFire, type JobHandler, type Logger, type Nats } from '@smsgw/platform';
import type { DueTimerPayload } from './scheduled-sends';

const DURABLE = 'message-timers';
/** A failed job run is tried this many times in all, then left to the next period. */
const MAX_ATTEMPTS = 5;

function parseDue(bytes: Uint8Array): DueTimerPayload | undefined {
  try {
    const p = JSON.parse(new TextDecoder().decode(bytes)) as Partial<DueTimerPayload> | null;
    if (p && typeof p.message_id === 'string' && typeof p.device_id === 'string' && (p.mode === 'live' || p.mode === 'test')) return p as DueTimerPayload;
  } catch {
    // dropped below
  }
  return undefined;
}

/**
 * Consumes the message service's timers (`timers.message.>`), one durable
 * consumer shared by the replicas:
 * - `message.due`: a scheduled message just became due; wake its device's
 *   hub (or the test-mode simulator) so that an idle phone gets it now.
 * - `message.jobs.<job>`: a periodic job's period began; run it.
 */
export class TimerConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly nats: Nats,
    private readonly jobs: Record<string, JobHandler>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { jsm, js, names } = this.nats;
    await jsm.consumers.add(names.timersStream, {
      durable_name: DURABLE,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: 60_000_000_000,
      max_deliver: MAX_ATTEMPTS,
      filter_subject: names.timer('message.>'),
    });
    const consumer = await js.consumers.get(names.timersStream, DURABLE);
    this.messages = await consumer.consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        if (msg.subject === names.timer('message.due')) {
          // In the trace of the send that scheduled it (the scheduler carries it on the fire).
          void consumeTraced(msg, {}, async () => this.due(msg));
          continue;
        }
        // A job may run for minutes: due messages must not wait behind it.
        const run = handleJobFire(msg, this.jobs, this.log, MAX_ATTEMPTS).finally(() => this.running.delete(run));
        this.running.add(run);
      }
    })();
  }

  private due(msg: JsMsg): void {
    const due = parseDue(msg.data);
    if (!due) {
      this.log.warn({ subject: msg.subject }, 'malformed due timer dropped');
      msg.term();
      return;
    }
    if (due.mode === 'live') this.nats.nc.publish(this.nats.names.wake(due.device_id));
    else this.nats.nc.publish(this.nats.names.testWake);
    this.log.debug({ message_id: due.message_id, device_id: due.device_id }, 'scheduled message due; hub woken');
    msg.ack();
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
    await Promise.all(this.running);
  }
}
