import { answersWithin, redisAnswers, reusedFor, type Nats, type Pool, type Redis } from '@smsgw/platform';

const CHECK_DEADLINE_MS = 1000;

/**
 * Whether NATS is connected, followed as its connection changes; `onBack` runs when it comes back
 * after an outage.
 */
export function watchNats(nats: Pick<Nats, 'nc' | 'onConnectionChange'>, onBack: () => void): () => boolean {
  let up = true;
  nats.onConnectionChange((connected) => {
    if (connected && !up) onBack();
    up = connected;
  });
  return () => up && !nats.nc.isClosed();
}

/**
 * `onBack` runs each time the Redis connection is ready again after it was lost. A Redis that
 * restarted has lost the phones' presence (no persistence): the hub writes it again at once rather
 * than at each phone's next pong, up to a ping interval later.
 */
export function watchRedis(redis: Pick<Redis, 'on'>, onBack: () => void): void {
  let lost = false;
  redis.on('close', () => (lost = true));
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    onBack();
  });
}

/**
 * What the agent server's GET /readyz needs: the dependencies that do not answer (none: ready),
 * Postgres and Redis within a second and NATS while connected. One answer serves every probe for a
 * second, so a flood of probes costs at most one round of checks per second.
 */
export function unreadyDependencies(pool: Pick<Pool, 'query'>, redis: Redis, natsConnected: () => boolean): () => Promise<string[]> {
  return reusedFor(1000, async () => {
    const [postgres, redisUp] = await Promise.all([
      answersWithin(
        CHECK_DEADLINE_MS,
        pool.query('SELECT 1').then(() => true),
      ),
      redisAnswers(redis, CHECK_DEADLINE_MS),
    ]);
    const down: string[] = [];
    if (!postgres) down.push('postgres');
    if (!redisUp) down.push('redis');
    if (!natsConnected()) down.push('nats');
    return down;
  });
}
