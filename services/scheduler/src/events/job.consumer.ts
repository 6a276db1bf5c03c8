import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { parseJobFire, runPeriodicJob, type Logger, type Nats } from '@smsgw/platform';

const DURABLE = 'scheduler-jobs';
/** A failed run is tried this many times in all, then left to the next period. */
const MAX_ATTEMPTS = 5;

/** What a job did, logged with its outcome. */
export type JobHandler = () => Promise<Record<string, unknown>>;

/**
 * Runs the scheduler's own periodic jobs when their timers fire
 * (`timers.scheduler.jobs.<job>`). One durable consumer shared by the
 * replicas: each fire is delivered to one of them.
 */
export class JobConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;

  constructor(
    private readonly nats: Nats,
    private readonly handlers: Record<string, JobHandler>,
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
      filter_subject: names.timer('scheduler.>'),
    });
    const consumer = await js.consumers.get(names.timersStream, DURABLE);
    this.messages = await consumer.consume({ max_messages: 4 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        const fire = parseJobFire(msg.data);
        const handler = fire && this.handlers[fire.job];
        if (!fire || !handler) {
          this.log.warn({ subject: msg.subject }, 'unknown periodic job dropped');
          msg.term();
          continue;
        }
        const heartbeat = setInterval(() => msg.working(), 20_000);
        try {
          await runPeriodicJob(fire, handler, this.log);
          msg.ack();
        } catch {
          msg.nak(30_000);
        } finally {
          clearInterval(heartbeat);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }
}
