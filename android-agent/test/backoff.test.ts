import { BACKOFF_CAP_MS, nextDelay } from '../src/backoff';

// The largest value Math.random can return is just below 1.
const ALMOST_ONE = 1 - Number.EPSILON;

describe('nextDelay', () => {
  it('when the random draw is 0, then the delay is 0 whatever the attempt', () => {
    for (const attempt of [0, 1, 5, 20]) expect(nextDelay(attempt, () => 0)).toBe(0);
  });

  it('when attempts grow, then the upper bound doubles from 1 s up to the 60 s cap', () => {
    const bounds = [0, 1, 2, 3, 4, 5, 6, 7, 10].map((attempt) => nextDelay(attempt, () => ALMOST_ONE) + 1);
    expect(bounds).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('when the random draw is in the middle, then the delay is that fraction of the bound', () => {
    expect(nextDelay(0, () => 0.5)).toBe(500);
    expect(nextDelay(3, () => 0.25)).toBe(2_000);
    expect(nextDelay(12, () => 0.5)).toBe(30_000);
  });

  it('when the attempt count is huge, then the delay stays a finite number within the cap', () => {
    const delay = nextDelay(10_000, () => ALMOST_ONE);
    expect(Number.isFinite(delay)).toBe(true);
    expect(delay).toBeLessThan(BACKOFF_CAP_MS);
  });

  it('when Math.random is used, then every delay lies between 0 and the bound of its attempt', () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const bound = Math.min(BACKOFF_CAP_MS, 1_000 * 2 ** attempt);
      for (let draw = 0; draw < 200; draw += 1) {
        const delay = nextDelay(attempt);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(bound);
      }
    }
  });
});
