import { DATABASE_URL, eventually, NATS_URL, randomHex, REDIS_URL, thrownBy } from '../src';

describe('@smsgw/testing', () => {
  it('when no TEST_* variable is set, then the URLs are the local servers', () => {
    expect([DATABASE_URL, NATS_URL, REDIS_URL]).toEqual([
      process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222',
      process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    ]);
    expect(randomHex()).toMatch(/^[0-9a-f]{12}$/);
  });

  it('when the probe turns truthy, then eventually returns its value; when it never does, then it fails naming what it waited for', async () => {
    let n = 0;
    expect(await eventually(async () => ++n >= 3 && n)).toBe(3);
    await expect(eventually(async () => false, 50, 'the moon')).rejects.toThrow('timed out waiting for the moon');
  });

  it('when the promise rejects, then thrownBy returns the error; when it resolves, then thrownBy fails', async () => {
    const err = await thrownBy<Error & { code: string }>(Promise.reject(Object.assign(new Error('no'), { code: 'X' })));
    expect(err.code).toBe('X');
    await expect(thrownBy(Promise.resolve(1))).rejects.toThrow('expected a rejection');
  });
});
