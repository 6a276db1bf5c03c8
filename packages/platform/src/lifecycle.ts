import { ConfigError } from './config';
import type { Logger } from './logger';

export interface Runnable {
  stop(): Promise<void>;
}

/**
 * Runs a service's `start()` and stops it once on SIGTERM or SIGINT. A
 * second signal, or a stop that hangs past `graceMs`, exits at once.
 */
export function runMain(log: Logger, start: () => Promise<Runnable>, graceMs = 15_000): void {
  let stopping = false;
  let started: Promise<Runnable>;
  try {
    started = start();
  } catch (err) {
    started = Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  started.then(
    (app) => {
      const shutdown = (signal: string) => {
        if (stopping) process.exit(1);
        stopping = true;
        log.info({ signal }, 'shutting down');
        const timer = setTimeout(() => {
          log.error('shutdown took too long, exiting');
          process.exit(1);
        }, graceMs);
        timer.unref();
        app.stop().then(
          () => {
            log.info('stopped');
            process.exit(0);
          },
          (err: unknown) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    },
    (err: unknown) => {
      if (err instanceof ConfigError) log.fatal({ problems: err.problems }, err.message);
      else log.fatal({ err }, 'start-up failed');
      // Give pino a moment to flush before exiting.
      setTimeout(() => process.exit(1), 100);
    },
  );
}
