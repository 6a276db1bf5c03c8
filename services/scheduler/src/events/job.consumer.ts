import { metrics } from '@opentelemetry/api';
import { AckPolicy, DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import type { Logger, Nats } from '@smsgw/platform';

const DURABLE = 'scheduler-jobs';
const meter = metrics.getMeter('smsgw-scheduler');
const runs = meter.createCounter('smsgw.jobs.runs', { description: 'Periodic job runs by job and outcome' });
const duration = meter.createHistogram('smsgw.jobs.duration', { description: 'Periodic job run time', unit: 'ms' });

/** What a job did, logged with its outcome. */
export type JobHandler = () => Promise<Record<string, unknown>>;

/**
 * Runs the scheduler's own periodic jobs when their timers fire
 * (`timers.jobs.scheduler.<job>`). One durable consumer shared by the
 * replicas: each fire is delivered to one of them; a failed run is retried a
 * few times, then left to the next period.
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
      max_deliver: 5,
      filter_subject: names.timer('jobs.scheduler.>'),
    });
    const consumer = await js.consumers.get(names.timersStream, DURABLE);
    this.messages = await consumer.consume({ max_messages: 4 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        let job = '';
        let periodStart = '';
        try {
          const body = JSON.parse(msg.string()) as { job?: unknown; period_start?: unknown };
          job = typeof body.job === 'string' ? body.job : '';
          periodStart = typeof body.period_start === 'string' ? body.period_start : '';
        } catch {
          // handled below as an unknown job
        }
        const handler = this.handlers[job];
        if (!handler) {
          this.log.warn({ subject: msg.subject }, 'unknown periodic job dropped');
          msg.term();
          continue;
        }
        const started = performance.now();
        const heartbeat = setInterval(() => msg.working(), 20_000);
        try {
          const result = await handler();
          const ms = Math.round(performance.now() - started);
          runs.add(1, { job, outcome: 'ok' });
          duration.record(ms, { job });
          this.log.info({ job, period_start: periodStart, outcome: 'ok', duration_ms: ms, ...result }, 'periodic job run');
          msg.ack();
        } catch (err) {
          runs.add(1, { job, outcome: 'failed' });
          this.log.error({ err, job, period_start: periodStart, outcome: 'failed', attempt: msg.info.deliveryCount }, 'periodic job run failed');
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
