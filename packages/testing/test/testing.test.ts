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

  it('when the probe throws, then eventually fails at once; with retryErrors, then it tries again and names the last error when it times out', async () => {
    let n = 0;
    const flaky = async () => {
      if (++n < 3) throw new Error('refused');
      return n;
    };
    await expect(eventually(flaky, 1000, 'the server')).rejects.toThrow('refused');
    n = 0;
    expect(await eventually(flaky, 1000, 'the server', { retryErrors: true, intervalMs: 10 })).toBe(3);
    const down = async (): Promise<number> => {
      throw new Error('refused');
    };
    await expect(eventually(down, 50, 'the server', { retryErrors: true })).rejects.toThrow('timed out waiting for the server: refused');
  });

  it('when the promise rejects, then thrownBy returns the error; when it resolves, then thrownBy fails', async () => {
    const err = await thrownBy<Error & { code: string }>(Promise.reject(Object.assign(new Error('no'), { code: 'X' })));
    expect(err.code).toBe('X');
    await expect(thrownBy(Promise.resolve(1))).rejects.toThrow('expected a rejection');
  });

  it('when thrownBy is given a class, then it returns an error of that class and fails on any other', async () => {
    class Refusal extends Error {}
    const err = await thrownBy(Promise.reject(new Refusal('no')), Refusal);
    expect(err).toBeInstanceOf(Refusal);
    await expect(thrownBy(Promise.reject(new Error('other')), Refusal)).rejects.toThrow('expected a rejection with a Refusal');
  });
});
