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

/**
 * The Redis key holding a device's presence (its connection id, with a TTL
 * refreshed by heartbeats). Written by the device-hub, read by the gateway.
 */
export function presenceKey(deviceId: string): string {
  return `presence:${deviceId}`;
}
