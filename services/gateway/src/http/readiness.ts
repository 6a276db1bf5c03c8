import { redisAnswers, reusedFor, type HealthChecker, type Redis } from '@smsgw/platform';

export interface ReadinessReport {
  ready: boolean;
  /** Each dependency by name, `up` or `down`. */
  checks: Record<string, 'up' | 'down'>;
}

const CHECK_DEADLINE_MS = 1000;

/**
 * What the gateway needs to answer requests: Redis (rate limit, presence,
 * idempotency) answering PING, and every upstream gRPC service answering
 * SERVING to its health check. One report serves every probe for `reuseMs`,
 * so a flood of probes costs at most one round of checks per interval.
 */
export function readiness(redis: Redis, upstreams: Record<string, HealthChecker>, reuseMs = 1000): () => Promise<ReadinessReport> {
  return reusedFor(reuseMs, async (): Promise<ReadinessReport> => {
    const names = ['redis', ...Object.keys(upstreams)];
    const results = await Promise.all([
      redisAnswers(redis, CHECK_DEADLINE_MS),
      ...Object.values(upstreams).map((h) => h.serving('', CHECK_DEADLINE_MS)),
    ]);
    const checks = Object.fromEntries(names.map((name, i) => [name, results[i] ? 'up' : 'down'])) as ReadinessReport['checks'];
    return { ready: results.every(Boolean), checks };
  });
}
