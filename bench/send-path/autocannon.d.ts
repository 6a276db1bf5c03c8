// autocannon ships no types: what load.js uses of it.
declare module 'autocannon' {
  function autocannon(options: Record<string, unknown>): autocannon.Instance;
  namespace autocannon {
    /** A run: its result once it ends, and an event per response meanwhile. */
    interface Instance extends Promise<Result> {
      on(event: 'response', listener: () => void): void;
    }
    interface Result {
      duration: number;
      requests: { total: number; average: number };
      latency: { average: number; p50: number; p90: number; p99: number; max: number };
      statusCodeStats?: Record<string, { count: number }>;
      non2xx: number;
      errors: number;
      timeouts: number;
    }
  }
  export = autocannon;
}
