export { DATABASE_URL, NATS_URL, randomHex, REDIS_URL } from './servers';
export * from './service';
export * from './openapi';
export * from './grpc-tls';
export * from './device-owners';
export * from './plans';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface EventuallyOptions {
  /** The wait between two probes (25 ms). */
  intervalMs?: number;
  /**
   * A probe that throws is tried again until the deadline, its last error named in the timeout's
   * (a server restarting refuses connections meanwhile); without it, the first error fails at once.
   */
  retryErrors?: boolean;
}

/** Polls `probe` until it returns something truthy, or fails after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  what = 'condition',
  options: EventuallyOptions = {},
): Promise<T> {
  const { intervalMs = 25, retryErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      if (!retryErrors) throw err;
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await sleep(intervalMs);
  }
}

/**
 * What `promise` was rejected with; fails the test when it resolves instead, or, given `type`, when
 * what it was rejected with is not one.
 */
export async function thrownBy<E = Error>(promise: Promise<unknown>, type?: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (err) {
    if (type && !(err instanceof type)) throw new Error(`expected a rejection with a ${type.name}, not ${String(err)}`, { cause: err });
    return err as E;
  }
  throw new Error('expected a rejection, but the promise resolved');
}
