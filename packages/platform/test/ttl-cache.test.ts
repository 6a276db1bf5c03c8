import { TtlCache } from '../src';

describe('TtlCache', () => {
  afterEach(() => jest.useRealTimers());

  it('when an entry is within its time to live, then it is served; after it, forgotten', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const cache = new TtlCache<string>({ maxEntries: 10, ttlMs: 1000 });
    cache.set('a', 'A');

    jest.setSystemTime(1_000_999);
    expect(cache.get('a')).toBe('A');
    jest.setSystemTime(1_001_000);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('when a time to live is given per entry, then it wins over the default; 0 keeps nothing', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const cache = new TtlCache<number>({ maxEntries: 10, ttlMs: 1000 });
    cache.set('long', 1, 5000);
    cache.set('none', 2, 0);

    jest.setSystemTime(1_004_000);
    expect(cache.get('long')).toBe(1);
    expect(cache.get('none')).toBeUndefined();
  });

  it('when more keys come than maxEntries, then the oldest go first and the size stays bounded', () => {
    const cache = new TtlCache<number>({ maxEntries: 3, ttlMs: 60_000 });
    for (let i = 0; i < 1000; i++) cache.set(`k${i}`, i);

    expect(cache.size).toBe(3);
    expect([cache.get('k996'), cache.get('k997'), cache.get('k998'), cache.get('k999')]).toEqual([undefined, 997, 998, 999]);
  });

  it('when a key is set again, then it counts as the newest', () => {
    const cache = new TtlCache<number>({ maxEntries: 2, ttlMs: 60_000 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3);
    cache.set('c', 4);

    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([3, undefined, 4]);
  });
});
