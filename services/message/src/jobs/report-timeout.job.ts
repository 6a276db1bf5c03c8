import { timerLoop, type Logger, type TimerLoop } from '@smsgw/platform';
import type { ReportTimeoutRepository } from '../data/report-timeout.repository';
import type { SmsEventPublisher } from '../events/sms-event.publisher';

/** Messages ended (and their events published) per transaction. */
const BATCH = 100;
/** The first run comes soon after start-up, not a full interval later. */
const FIRST_RUN_MAX_DELAY_MS = 10_000;

/**
 * Ends the messages a phone accepted but never reported (a phone that lost
 * its storage, a wiped agent): after `timeoutMs` without a report they become
 * `failed` with error `EXPIRED`, and their `sms.failed` event is published.
 * Every replica runs it; the row locks of the repository share the work out.
 */
export class ReportTimeoutJob {
  private readonly loop: TimerLoop;
  private stopping = false;

  constructor(
    private readonly repo: ReportTimeoutRepository,
    private readonly publisher: SmsEventPublisher,
    private readonly settings: { timeoutMs: number; intervalMs: number },
    private readonly log: Logger,
  ) {
    this.loop = timerLoop({
      name: 'report-timeout',
      intervalMs: settings.intervalMs,
      firstDelayMs: Math.min(FIRST_RUN_MAX_DELAY_MS, settings.intervalMs),
      tick: () => this.runLogged(),
      log,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** One run: every message past the bound, batch after batch. */
  async runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const ended = await this.repo.expireUnreported(this.settings.timeoutMs, BATCH, async (rows) => {
        await Promise.all(rows.map((row) => this.publisher.publish(row)));
      });
      total += ended;
      if (ended < BATCH || this.stopping) return total;
    }
  }

  private async runLogged(): Promise<void> {
    try {
      const expired = await this.runOnce();
      if (expired > 0)
        this.log.info({ expired, timeout_ms: this.settings.timeoutMs }, 'accepted messages never reported ended as failed (EXPIRED)');
    } catch (err) {
      this.log.error({ err }, 'report timeout run failed; next attempt at the next interval');
    }
  }

  /** Stops the timer and waits for a run in progress (after its current batch). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
  }
}
