import { randomBytes } from 'node:crypto';
import { createRedis, FixedWindowCounter, SlidingWindowLimiter, TickPipeline, type Redis } from '../src';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('limiters against a real Redis', () => {
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

  describe('SlidingWindowLimiter', () => {
    it('when hits come faster than the limit, then the limit passes and the rest are refused with the time until the oldest leaves', async () => {
      const limiter = new SlidingWindowLimiter(redis, { limit: 3, windowMs: 60_000 });

      const hits = [];
      for (let i = 0; i < 5; i++) hits.push(await limiter.hit('sliding:a'));

      expect(hits.map((h) => h.allowed)).toEqual([true, true, true, false, false]);
      expect(hits.map((h) => h.count)).toEqual([1, 2, 3, 3, 3]);
      expect(hits[4]!.resetMs).toBeGreaterThan(59_000);
      expect(hits[4]!.resetMs).toBeLessThanOrEqual(60_000);
      expect(await raw.zcard(`${prefix}sliding:a`)).toBe(3);
    });

    it('when a hit is released, then its place is free again', async () => {
      const limiter = new SlidingWindowLimiter(redis, { limit: 1, windowMs: 60_000 });
      const first = await limiter.hit('sliding:b');
      expect((await limiter.hit('sliding:b')).allowed).toBe(false);

      await first.release();

      expect((await limiter.hit('sliding:b')).allowed).toBe(true);
    });

    it('when the window has passed, then hits pass again', async () => {
      const limiter = new SlidingWindowLimiter(redis, { limit: 1, windowMs: 100 });
      expect((await limiter.hit('sliding:c')).allowed).toBe(true);
      expect((await limiter.hit('sliding:c')).allowed).toBe(false);

      await new Promise((r) => setTimeout(r, 150));

      expect((await limiter.hit('sliding:c')).allowed).toBe(true);
    });

    it('when 50 hits come at once through a tick pipeline, then exactly the limit passes', async () => {
      const limiter = new SlidingWindowLimiter(new TickPipeline(redis), { limit: 7, windowMs: 60_000 });

      const hits = await Promise.all(Array.from({ length: 50 }, () => limiter.hit('sliding:burst')));

      expect(hits.filter((h) => h.allowed)).toHaveLength(7);
    });
  });

  describe('FixedWindowCounter', () => {
    it('when hits are counted, then the window starts at the first and its count and time left are read back', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 60_000 });

      expect(await counter.read('fixed:a')).toEqual({ count: 0, ttlMs: -2 });
      expect((await counter.count('fixed:a')).count).toBe(1);
      const second = await counter.count('fixed:a');

      expect(second.count).toBe(2);
      expect(second.ttlMs).toBeGreaterThan(59_000);
      expect((await counter.read('fixed:a')).count).toBe(2);
    });

    it('when a hit is refunded or the key reset, then the count goes down, never below zero', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 60_000 });
      await counter.count('fixed:b');
      await counter.count('fixed:b');

      await counter.refund('fixed:b');
      expect((await counter.read('fixed:b')).count).toBe(1);
      await counter.reset('fixed:b');
      await counter.refund('fixed:b');

      expect((await counter.read('fixed:b')).count).toBe(0);
    });

    it('when the window has passed, then the count starts again', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 100 });
      await counter.count('fixed:c');
      await counter.count('fixed:c');

      await new Promise((r) => setTimeout(r, 150));

      expect((await counter.count('fixed:c')).count).toBe(1);
    });

    it('when one of the keys has reached the limit, then take refuses and counts on none of them', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 60_000 });
      await counter.count('fixed:ip');
      await counter.count('fixed:ip');

      const refused = await counter.take(['fixed:ip', 'fixed:email'], 2);

      expect(refused).toMatchObject({ allowed: false, count: 2 });
      expect((await counter.read('fixed:email')).count).toBe(0);
      expect((await counter.take(['fixed:other-ip', 'fixed:email'], 2)).allowed).toBe(true);
      expect((await counter.read('fixed:email')).count).toBe(1);
    });

    it('when 50 attempts check and count at once, then no more than the limit pass', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 60_000 });

      const takes = await Promise.all(Array.from({ length: 50 }, () => counter.take(['fixed:burst-ip', 'fixed:burst-email'], 5)));

      expect(takes.filter((t) => t.allowed)).toHaveLength(5);
      expect((await counter.read('fixed:burst-ip')).count).toBe(5);
    });

    it('when each key has a limit of its own, then take refuses on the first key without room and says which', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 60_000 });

      const takes = [];
      for (let i = 0; i < 4; i++) takes.push(await counter.take(['fixed:own-device', 'fixed:own-client'], [3, 10]));

      expect(takes.map((t) => t.allowed)).toEqual([true, true, true, false]);
      expect(takes[3]).toMatchObject({ refusedBy: 0, count: 3 });
      expect((await counter.take(['fixed:own-device-2', 'fixed:own-client'], [3, 4])).allowed).toBe(true);
      expect(await counter.take(['fixed:own-device-3', 'fixed:own-client'], [3, 4])).toMatchObject({ allowed: false, refusedBy: 1 });
    });

    it('when a hit weighs more than one, then it counts its weight and is refused when it does not fit, unless the window is empty', async () => {
      const counter = new FixedWindowCounter(redis, { windowMs: 60_000 });

      expect((await counter.take(['fixed:weight'], 10, 4)).allowed).toBe(true);
      expect((await counter.take(['fixed:weight'], 10, 4)).allowed).toBe(true);
      expect(await counter.take(['fixed:weight'], 10, 4)).toMatchObject({ allowed: false, count: 8 });
      expect((await counter.take(['fixed:weight'], 10, 2)).allowed).toBe(true);
      expect((await counter.read('fixed:weight')).count).toBe(10);
      // Heavier than the whole limit: it passes into an empty window, and fills it.
      expect((await counter.take(['fixed:heavy'], 10, 25)).allowed).toBe(true);
      expect((await counter.take(['fixed:heavy'], 10, 1)).allowed).toBe(false);
    });
  });
});
