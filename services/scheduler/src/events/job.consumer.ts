import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { handleJobFire, type JobHandler, type Logger, type Nats } from '@smsgw/platform';

const DURABLE = 'scheduler-jobs';
/** A failed run is tried this many times in all, then left to the next period. */
const MAX_ATTEMPTS = 5;


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
        await handleJobFire(msg, this.handlers, this.log, MAX_ATTEMPTS);
      }
    })();
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }
}
