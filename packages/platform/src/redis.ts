import { Redis } from 'ioredis';

export type { Redis };

/** One Redis connection for a service; every key gets the configured prefix. */
export function createRedis(options: { url: string; keyPrefix: string; name: string }): Redis {
  return new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectionName: options.name,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: true,
  });
}
