import { handleJobFire, runDurableConsumer, type DurableConsumer, type JobHandler, type Logger, type Nats } from '@smsgw/platform';

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
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      // Jobs run side by side, as in the other services' timer consumers; each fire keeps itself with a heartbeat.
      {
        stream: names.timersStream,
        durable: DURABLE,
        filterSubject: names.timer('scheduler.>'),
        ackWaitMs: 60_000,
        concurrency: 'concurrent',
        log: this.log,
      },
      (msg) => handleJobFire(msg, this.handlers, this.log, MAX_ATTEMPTS),
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
