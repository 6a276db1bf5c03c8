import { randomBytes } from 'node:crypto';
import { createRedis, type Redis } from '../src';

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
});
