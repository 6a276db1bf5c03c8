import type { Logger } from './logger';

export interface TimerLoop {
  start(): void;
  /** No tick after this; waits for the one running, if any. */
  stop(): Promise<void>;
}

/**
 * A local sweep: `tick` every `intervalMs`, never two at once (the next wait starts when a tick
 * ends), on an unref'd timer (it never keeps the process alive). An interval of 0 or less never
 * starts. The first tick comes after `firstDelayMs` (default: one interval). A tick that throws is
 * logged and the loop goes on. See docs/contributors/timers.md for when a local loop is right.
 */
export function timerLoop(options: {
  name: string;
  intervalMs: number;
  firstDelayMs?: number;
  tick: () => Promise<unknown>;
  log: Logger;
}): TimerLoop {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      running = (async () => {
        try {
          await options.tick();
        } catch (err) {
          options.log.error({ err, loop: options.name }, 'local timer tick failed; next attempt at the next interval');
        }
      })().finally(() => {
        running = undefined;
        if (!stopped) schedule(options.intervalMs);
      });
    }, delayMs);
    timer.unref();
  };

  return {
    start() {
      if (options.intervalMs <= 0 || stopped || timer) return;
      schedule(options.firstDelayMs ?? options.intervalMs);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
