import { answersWithin, reusedFor } from '../src';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reusedFor', () => {
  it('when asked many times within the window, then run is called once and every caller gets its answer', async () => {
    let runs = 0;
    const check = reusedFor(200, async () => {
      runs++;
      await sleep(10);
      return runs;
    });

    const answers = await Promise.all(Array.from({ length: 20 }, () => check()));

    expect(answers).toEqual(Array(20).fill(1));
    expect(runs).toBe(1);
  });

  it('when the window has passed, then the next caller gets a fresh answer', async () => {
    let runs = 0;
    const check = reusedFor(20, async () => ++runs);
    expect(await check()).toBe(1);

    await sleep(40);

    expect(await check()).toBe(2);
  });
});

describe('answersWithin', () => {
  it('when the check answers true in time, then true; late, false or failed, then false', async () => {
    expect(await answersWithin(100, Promise.resolve(true))).toBe(true);
    expect(await answersWithin(100, Promise.resolve(false))).toBe(false);
    expect(await answersWithin(100, Promise.reject(new Error('refused')))).toBe(false);
    expect(
      await answersWithin(
        20,
        sleep(200).then(() => true),
      ),
    ).toBe(false);
  });
});
