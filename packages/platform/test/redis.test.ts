import { randomBytes } from 'node:crypto';
import { Redis as IORedis } from 'ioredis';
import { createRedis, redisAnswers, TickPipeline, type Redis } from '../src';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('createRedis', () => {
  const prefix = `t_${randomBytes(5).toString('hex')}:`;
  let redis: Redis;
  let raw: Redis;

  beforeAll(() => {
    redis = createRedis({ url: REDIS_URL, keyPrefix: prefix, name: 'platform-test' });
    raw = createRedis({ url: REDIS_URL, keyPrefix: '', name: 'platform-test-raw' });
  });

  afterAll(async () => {
    const keys = await raw.keys(`${prefix}*`);
    if (keys.length > 0) await raw.del(...keys);
    await redis.quit();
    await raw.quit();
  });

  it('when a key is written, then it is stored under the configured prefix and read back without it', async () => {
    await redis.set('rate:client_1', '3', 'EX', 60);

    expect(await redis.get('rate:client_1')).toBe('3');
    expect(await raw.get(`${prefix}rate:client_1`)).toBe('3');
    expect(await raw.get('rate:client_1')).toBeNull();
  });

  it('when the client is created, then it connects on its first command only', async () => {
    const lazy = createRedis({ url: REDIS_URL, keyPrefix: prefix, name: 'platform-test-lazy' });
    try {
      expect(lazy.status).toBe('wait');
      expect(await lazy.incr('counter')).toBe(1);
      expect(lazy.status).toBe('ready');
    } finally {
      await lazy.quit();
    }
  });

  describe('TickPipeline', () => {
    it('when commands are asked in one turn of the event loop, then they leave in one pipeline and each caller gets its own reply or error', async () => {
      const pipeline = new TickPipeline(redis);
      await redis.set('tick:text', 'not a number');
      const pipelines = jest.spyOn(redis, 'pipeline');

      const replies = await Promise.allSettled([
        pipeline.run((p) => p.incr('tick:a')),
        pipeline.run((p) => p.incr('tick:text')),
        pipeline.run((p) => p.exists('tick:a')),
        pipeline.run((p) => p.get('tick:missing')),
      ]);

      expect(replies[0]).toEqual({ status: 'fulfilled', value: 1 });
      expect(replies[1]).toMatchObject({
        status: 'rejected',
        reason: expect.objectContaining({ message: expect.stringContaining('not an integer') }),
      });
      expect(replies[2]).toEqual({ status: 'fulfilled', value: 1 });
      expect(replies[3]).toEqual({ status: 'fulfilled', value: null });
      expect(await raw.get(`${prefix}tick:a`)).toBe('1');
      expect(pipelines).toHaveBeenCalledTimes(1);
      pipelines.mockRestore();
    });

    it('when Redis cannot be reached, then every caller of the turn gets the error', async () => {
      // Nothing listens on port 1; no retry, so that nothing is left running afterwards.
      const down = new IORedis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
      down.on('error', () => undefined);
      const pipeline = new TickPipeline(down);
      try {
        const replies = await Promise.allSettled([pipeline.run((p) => p.get('x')), pipeline.run((p) => p.get('y'))]);
        expect(replies.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      } finally {
        down.disconnect();
      }
    });
  });
});

describe('redisAnswers', () => {
  it('when Redis answers, then it is true; when nothing listens, then it is false at once', async () => {
    const up = createRedis({ url: REDIS_URL, keyPrefix: '', name: 'platform-test-ready' });
    const down = createRedis({ url: 'redis://127.0.0.1:9', keyPrefix: '', name: 'platform-test-down', failFastMs: 200 });
    down.on('error', () => undefined);
    try {
      await up.connect();
      expect(await redisAnswers(up, 1000)).toBe(true);
      await down.connect().catch(() => undefined);
      const started = Date.now();
      expect(await redisAnswers(down, 1000)).toBe(false);
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      up.disconnect();
      down.disconnect();
    }
  });
});
