import { Redis, type ChainableCommander } from 'ioredis';

export type { ChainableCommander, Redis };

/**
 * One Redis connection for a service; every key gets the configured prefix.
 * Commands issued in the same turn of the event loop (the rate limit and
 * presence checks of concurrent requests) leave in one write.
 */
export function createRedis(options: {
  url: string;
  keyPrefix: string;
  name: string;
  /**
   * Refuse commands at once while the connection is down (instead of queueing
   * them through up to three reconnection attempts, seconds), and give up on
   * a command unanswered after this many milliseconds: for a server whose
   * callers have a deadline. The connection still comes back by itself.
   */
  failFastMs?: number;
}): Redis {
  return new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectionName: options.name,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: options.failFastMs === undefined,
    ...(options.failFastMs === undefined ? {} : { commandTimeout: options.failFastMs, connectTimeout: options.failFastMs }),
    lazyConnect: true,
    enableAutoPipelining: true,
  });
}

/**
 * Whether Redis answers a PING within `ms` (readiness probes): false at once while the
 * connection is down, and false for a late or failed answer.
 */
export async function redisAnswers(redis: Redis, ms = 1000): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const answer = redis.ping().then(
    (reply) => reply === 'PONG',
    () => false,
  );
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|BUSY|CLUSTERDOWN|TRYAGAIN)\b/;

/**
 * Whether `err` says Redis could not be reached or cannot answer now (closed
 * or refused connection, timeout, retries exhausted, a server still loading),
 * as opposed to a bug in a command.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|ENETUNREACH)$/.test(code)) return true;
  return (
    /^(Connection is closed\.|Command timed out|Stream isn't writeable)/.test(err.message) ||
    (err.name === 'ReplyError' && UNAVAILABLE_REPLIES.test(err.message))
  );
}

/**
 * The Redis key holding a device's presence (its connection id, with a TTL
 * refreshed by heartbeats). Written by the device-hub, read by the gateway.
 */
export function presenceKey(deviceId: string): string {
  return `presence:${deviceId}`;
}

/**
 * The Redis key that marks a removed device, written by the device-hub
 * before it answers the removal and read by every gateway replica on each
 * send naming the device, so that none accepts a send for it afterwards
 * (their ownership caches may still hold it).
 */
export function removedDeviceKey(deviceId: string): string {
  return `device-removed:${deviceId}`;
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

  constructor(readonly redis: Redis) {}

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
