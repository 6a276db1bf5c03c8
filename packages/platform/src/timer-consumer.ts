import type { JsMsg } from '@nats-io/jetstream';
import { runDurableConsumer, type DurableConsumer } from './durable-consumer';
import type { Logger } from './logger';
import type { Nats } from './nats';
import { handleJobFire, type JobHandler } from './periodic-jobs';

/** What a service does with one of its own timers' fires (anything but a periodic job's). */
export type TimerHandler = (msg: JsMsg) => Promise<void> | void;

/**
 * The one consumer of a service's timers (`timers.<service>.>`), a durable shared by its replicas,
 * the same in every service: a fire on one of `handlers`' subjects (`<service>.retry`,
 * `<service>.due`) goes to its handler, any other is a periodic job's and goes to `jobs`. Fires are
 * handled side by side: a job may run for minutes (its fire kept by a heartbeat), and nothing
 * waits behind it.
 */
export function runTimerConsumer(
  nats: Nats,
  options: {
    /** The service whose timers these are: `message` reads `timers.message.>`. */
    service: string;
    durable: string;
    jobs: Readonly<Record<string, JobHandler>>;
    /** By subject under `timers.`, e.g. `webhook.retry`. */
    handlers?: Readonly<Record<string, TimerHandler>>;
    /** A failed job run is tried this many times in all, then left to the next period. */
    maxJobAttempts?: number;
    log: Logger;
  },
): Promise<DurableConsumer> {
  const { names } = nats;
  const bySubject = new Map(Object.entries(options.handlers ?? {}).map(([subject, handle]) => [names.timer(subject), handle]));
  return runDurableConsumer(
    nats,
    {
      stream: names.timersStream,
      durable: options.durable,
      filterSubject: names.timer(`${options.service}.>`),
      ackWaitMs: 60_000,
      concurrency: 'concurrent',
      log: options.log,
    },
    async (msg) => {
      const handle = bySubject.get(msg.subject);
      if (handle) await handle(msg);
      else await handleJobFire(msg, options.jobs, options.log, options.maxJobAttempts);
    },
  );
}
