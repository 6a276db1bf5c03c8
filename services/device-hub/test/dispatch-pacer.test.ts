import { createLogger } from '@smsgw/platform';
import { NO_LIMITS, type DeviceLimits } from '../src/domain/limits';
import { DispatchPacer } from '../src/sessions/dispatch-pacer';

/** A phone's pace with a fake clock and an in-memory usage: pauses, room, and the age of its limits. */

function pacer(limits: Partial<DeviceLimits>, clock: { now: number }) {
  const sent: number[] = [];
  const bySim = new Map<number, number[]>();
  const usage = {
    record: async (_device: string, _id: string, at: number, slot = 0) => {
      sent.push(at);
      if (slot > 0) bySim.set(slot, [...(bySim.get(slot) ?? []), at]);
    },
    sentSince: async (_device: string, since: number, slot = 0) => (slot > 0 ? (bySim.get(slot) ?? []) : sent).filter((t) => t > since),
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
      expect(own.pauseAfter(0, clock.now)).toBeGreaterThanOrEqual(10_000);
      expect(own.pauseAfter(0, clock.now)).toBeLessThanOrEqual(12_000);
      expect(fallback.pauseAfter(0, clock.now)).toBeGreaterThanOrEqual(2000);
      expect(fallback.pauseAfter(0, clock.now)).toBeLessThanOrEqual(3000);
    }
  });

  it('when the phone took a while to acknowledge, then the pause is counted from the hand, not from the ack', () => {
    const clock = { now: 1_000_000 };
    const { pace } = pacer({ minIntervalMs: 4000, maxIntervalMs: 4000 }, clock);
    const handedAt = clock.now;
    clock.now += 300;
    expect(pace.pauseAfter(0, handedAt)).toBe(3700);
    clock.now += 5000;
    expect(pace.pauseAfter(0, handedAt)).toBe(0);
  });

  it('when the limit is reached, then the wait runs until the oldest leaves, capped by the re-check', async () => {
    const clock = { now: 1_000_000 };
    const { pace } = pacer({ perMinute: 2 }, clock);
    const wait = async (recheckMs: number) => (await pace.waitMs(recheckMs, log)).waitMs;
    expect(await wait(15_000)).toBe(0);
    await pace.acknowledged('msg_1');
    clock.now += 1000;
    await pace.acknowledged('msg_2');
    expect(await wait(120_000)).toBe(59_000 + 5);
    expect(await wait(15_000)).toBe(15_000);
    clock.now += 59_000;
    expect(await wait(15_000)).toBe(0);
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
    const { waitMs } = await pace.waitMs(15_000, log);
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

  it('when the phone has 2 SIMs, then each SIM has its own windows and pause, and the phone has room while one SIM has', async () => {
    const clock = { now: 1_000_000 };
    const { pace } = pacer({ perMinute: 1, minIntervalMs: 5000, maxIntervalMs: 5000 }, clock);
    pace.setSims([1, 2]);
    expect(await pace.room()).toEqual({ ok: true, simsWithRoom: [1, 2] });
    await pace.acknowledged('msg_1', 1);
    expect(pace.pauseAfter(1, clock.now)).toBe(0); // the SIM pauses, not the phone
    expect(await pace.room()).toEqual({ ok: true, simsWithRoom: [2] });
    await pace.acknowledged('msg_2', 2);
    expect(pace.pauseAfter(2, clock.now)).toBe(0);
    // Both minutes full: the wait is the first SIM's (its SMS leaves the window first).
    expect(await pace.room()).toEqual({ ok: false, waitMs: 60_000, reason: 'limit' });
    clock.now += 60_000;
    expect(await pace.room()).toEqual({ ok: true, simsWithRoom: [1, 2] });
  });

  it('when the phone has 2 SIMs without limits, then a SIM in its pause has no room until the pause ends', async () => {
    const clock = { now: 1_000_000 };
    const { pace } = pacer({ minIntervalMs: 4000, maxIntervalMs: 4000 }, clock);
    pace.setSims([1, 2]);
    pace.pauseAfter(1, clock.now);
    pace.pauseAfter(2, clock.now);
    clock.now += 1000;
    expect(await pace.room()).toEqual({ ok: false, waitMs: 3000, reason: 'pause' });
    clock.now += 3000;
    expect(await pace.room()).toEqual({ ok: true, simsWithRoom: [1, 2] });
  });

  it("when the phone has one known SIM, then its limits and pause stay the whole phone's", async () => {
    const clock = { now: 1_000_000 };
    const { pace } = pacer({ perMinute: 1, minIntervalMs: 4000, maxIntervalMs: 4000 }, clock);
    pace.setSims([1]);
    expect(pace.pauseAfter(1, clock.now)).toBe(4000);
    await pace.acknowledged('msg_1', 1);
    expect(await pace.room()).toMatchObject({ ok: false, reason: 'limit' });
  });
});
