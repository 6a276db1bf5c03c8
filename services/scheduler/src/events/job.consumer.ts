import { runTimerConsumer, type DurableConsumer, type JobHandler, type Logger, type Nats } from '@smsgw/platform';

const DURABLE = 'scheduler-jobs';
/** A failed run is tried this many times in all, then left to the next period. */
const MAX_ATTEMPTS = 5;

/**
 * Runs the scheduler's own periodic jobs when their timers fire
 * (`timers.scheduler.jobs.<job>`). One durable consumer shared by the
 * replicas: each fire is delivered to one of them.
 */
export class JobConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly handlers: Record<string, JobHandler>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.consumer = await runTimerConsumer(this.nats, {
      service: 'scheduler',
      durable: DURABLE,
      jobs: this.handlers,
      maxJobAttempts: MAX_ATTEMPTS,
      log: this.log,
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
