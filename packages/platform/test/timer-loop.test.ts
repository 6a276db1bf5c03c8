import { createLogger, timerLoop } from '../src';

const log = createLogger('test', 'silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('timerLoop', () => {
  it('when started, then it ticks every interval, the first after firstDelayMs', async () => {
    const at: number[] = [];
    const started = Date.now();
    // An interval far above the first delay, so that a busy machine (jest workers of other packages) cannot blur the two.
    const loop = timerLoop({ name: 't', intervalMs: 300, firstDelayMs: 5, tick: async () => void at.push(Date.now() - started), log });

    loop.start();
    await sleep(1000);
    await loop.stop();

    expect(at.length).toBeGreaterThanOrEqual(3);
    expect(at[0]).toBeLessThan(200);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(290);
  });

  it('when a tick lasts longer than the interval, then ticks never overlap', async () => {
    let busy = 0;
    let most = 0;
    let ticks = 0;
    const loop = timerLoop({
      name: 't',
      intervalMs: 5,
      tick: async () => {
        most = Math.max(most, ++busy);
        await sleep(30);
        busy--;
        ticks++;
      },
      log,
    });

    loop.start();
    await sleep(150);
    await loop.stop();

    expect(ticks).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
  });

  it('when stopped during a tick, then stop() waits for it and no tick follows', async () => {
    let ended = 0;
    let began = 0;
    const loop = timerLoop({
      name: 't',
      intervalMs: 1,
      tick: async () => {
        began++;
        await sleep(50);
        ended++;
      },
      log,
    });
    loop.start();
    await sleep(20);

    await loop.stop();
    expect([began, ended]).toEqual([1, 1]);
    await sleep(30);

    expect(began).toBe(1);
  });

  it('when a tick throws, then the loop goes on', async () => {
    let ticks = 0;
    const loop = timerLoop({
      name: 't',
      intervalMs: 5,
      tick: async () => {
        ticks++;
        throw new Error('boom');
      },
      log,
    });

    loop.start();
    await sleep(60);
    await loop.stop();

    expect(ticks).toBeGreaterThanOrEqual(2);
  });

  it('when the interval is 0, then it never ticks; and its timer never keeps the process alive', async () => {
    let ticks = 0;
    const never = timerLoop({ name: 't', intervalMs: 0, tick: async () => void ticks++, log });
    never.start();
    await sleep(20);
    await never.stop();
    expect(ticks).toBe(0);

    const handles = () =>
      (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = handles();
    const loop = timerLoop({ name: 't', intervalMs: 60_000, tick: async () => undefined, log });
    loop.start();
    // An unref'd timer is not listed among the resources that keep the event loop alive.
    expect(handles()).toBe(before);
    await loop.stop();
  });
});
