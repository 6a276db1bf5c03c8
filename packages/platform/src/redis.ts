import { Redis, type ChainableCommander } from 'ioredis';

export type { ChainableCommander, Redis };

/**
 * One Redis connection for a service; every key gets the configured prefix.
 * Commands issued in the same turn of the event loop (the rate limit and
 * presence checks of concurrent requests) leave in one write.
 */
export function createRedis(options: { url: string; keyPrefix: string; name: string }): Redis {
  return new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectionName: options.name,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: true,
    enableAutoPipelining: true,
  });
}

/**
 * The Redis key holding a device's presence (its connection id, with a TTL
 * refreshed by heartbeats). Written by the device-hub, read by the gateway.
 */
export function presenceKey(deviceId: string): string {
  return `presence:${deviceId}`;
}

/**
 * Gathers the commands of every request handled in one turn of the event
 * loop into one pipeline: one write and one read for all of them. (ioredis'
 * own auto-pipelining flushes on the next tick, which on a busy server is
 * once per request.) `add` must add exactly one command; its reply, or its
 * error, is that command's alone.
 */
export class TickPipeline {
  private waiting: { add(pipeline: ChainableCommander): unknown; resolve(reply: unknown): void; reject(err: unknown): void }[] = [];
  private scheduled = false;

  constructor(private readonly redis: Redis) {}

  run<T>(add: (pipeline: ChainableCommander) => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ add, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = [];
    const pipeline = this.redis.pipeline();
    for (const w of batch) w.add(pipeline);
    pipeline.exec().then(
      (replies) => {
        batch.forEach((w, i) => {
          const [err, reply] = replies?.[i] ?? [new Error('Redis pipeline answered no reply'), undefined];
          if (err) w.reject(err);
          else w.resolve(reply);
        });
      },
      (err: unknown) => batch.forEach((w) => w.reject(err)),
    );
  }
}
