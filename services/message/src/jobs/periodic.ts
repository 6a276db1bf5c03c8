/** The first run comes soon after start-up, not a full interval later. */
const FIRST_RUN_MAX_DELAY_MS = 10_000;

/**
 * Calls `run` every `intervalMs` (never two at once), the first time within
 * ten seconds of `start()`; an interval of 0 never starts. `run` handles its
 * own errors.
 */
export class Periodic {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly run: () => Promise<void>,
  ) {}

  start(): void {
    if (this.intervalMs <= 0) return;
    this.schedule(Math.min(FIRST_RUN_MAX_DELAY_MS, this.intervalMs));
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
