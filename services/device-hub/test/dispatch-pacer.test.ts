import { createLogger } from '@smsgw/platform';
import { NO_LIMITS, type DeviceLimits } from '../src/domain/limits';
import { DispatchPacer } from '../src/sessions/dispatch-pacer';

/** A phone's pace with a fake clock and an in-memory usage: pauses, room, and the age of its limits. */

function pacer(limits: Partial<DeviceLimits>, clock: { now: number }) {
  const sent: number[] = [];
  const usage = {
    record: async (_device: string, _id: string, at: number) => void sent.push(at),
    sentSince: async (_device: string, since: number) => sent.filter((t) => t > since),
  };
  const pace = new DispatchPacer(
    'device_x',
    { ...NO_LIMITS, ...limits },
    { usage, defaults: { minIntervalMs: 2000, maxIntervalMs: 3000 }, clock: () => clock.now },
  );
  return { pace, sent };
}

const log = createLogger('pacer-test', 'silent');

describe('DispatchPacer', () => {
  it("when the device has its own interval, then the pause is drawn in it; else in the hub's default", () => {
    const clock = { now: 0 };
    const own = pacer({ minIntervalMs: 10_000, maxIntervalMs: 12_000 }, clock).pace;
    const fallback = pacer({}, clock).pace;
    for (let i = 0; i < 50; i++) {
      expect(own.pauseMs()).toBeGreaterThanOrEqual(10_000);
      expect(own.pauseMs()).toBeLessThanOrEqual(12_000);
      expect(fallback.pauseMs()).toBeGreaterThanOrEqual(2000);
      expect(fallback.pauseMs()).toBeLessThanOrEqual(3000);
    }
  });

  it('when the limit is reached, then the wait runs until the oldest leaves, capped by the re-check', async () => {
    const clock = { now: 1_000_000 };
    const { pace } = pacer({ perMinute: 2 }, clock);
    expect(await pace.waitMs(15_000, log)).toBe(0);
    await pace.acknowledged('msg_1');
    clock.now += 1000;
    await pace.acknowledged('msg_2');
    expect(await pace.waitMs(120_000, log)).toBe(59_000 + 5);
    expect(await pace.waitMs(15_000, log)).toBe(15_000);
    clock.now += 59_000;
    expect(await pace.waitMs(15_000, log)).toBe(0);
  });

  it('when its usage cannot be read, then it waits 1 to 2 s rather than claim blind', async () => {
    const pace = new DispatchPacer(
      'device_x',
      { ...NO_LIMITS, perHour: 5 },
      {
        usage: { record: async () => undefined, sentSince: async () => Promise.reject(new Error('redis down')) },
        defaults: { minIntervalMs: 0, maxIntervalMs: 0 },
        clock: Date.now,
      },
    );
    const waitMs = await pace.waitMs(15_000, log);
    expect(waitMs).toBeGreaterThanOrEqual(1000);
    expect(waitMs).toBeLessThanOrEqual(2000);
  });

  it('when its limits were read over a minute ago, then they are stale until reloaded', () => {
    const clock = { now: 0 };
    const { pace } = pacer({}, clock);
    clock.now = 60_001;
    expect(pace.stale()).toBe(true);
    pace.reload({ ...NO_LIMITS, perDay: 10 });
    expect(pace.stale()).toBe(false);
    expect(pace.current.perDay).toBe(10);
  });
});
