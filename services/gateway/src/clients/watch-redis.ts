import type { Logger, Redis } from '@smsgw/platform';

/**
 * Logs when the Redis connection goes and comes back (once per change, not
 * per failed attempt); ioredis reconnects by itself meanwhile.
 */
export function watchRedis(redis: Redis, log: Logger): void {
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log.warn({ err: err.message }, 'Redis connection lost, reconnecting');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('Redis connection back');
    down = false;
  });
}
