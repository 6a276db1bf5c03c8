import {
  ackDeadlineMs,
  holdWaitMs,
  IDLE_AT_CONNECT,
  idleWaitMs,
  jittered,
  probeWaitMs,
  retryWaitMs,
  roomWaitMs,
} from '../src/domain/dispatch-timing';

/** The session's timing rules, pure: the idle back-off, the ack deadline, the retries and re-checks. */
describe('dispatch timing', () => {
  const dispatch = { sweepMs: 15_000, idleSweepMaxMs: 60_000 };

  it('when the queue is found empty again and again, then the idle wait doubles from the sweep up to the idle maximum', () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => idleWaitMs(dispatch, n))).toEqual([15_000, 30_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('when a phone has just connected, then its first idle wait is the longest', () => {
    expect(idleWaitMs(dispatch, IDLE_AT_CONNECT)).toBe(60_000);
  });

  it('when the idle maximum is below the sweep, then the idle wait is the sweep, and a huge count does not overflow', () => {
    expect(idleWaitMs({ sweepMs: 15_000, idleSweepMaxMs: 1000 }, 0)).toBe(15_000);
    expect(idleWaitMs({ sweepMs: 100, idleSweepMaxMs: 1e12 }, 10_000)).toBe(100 * 2 ** 20);
  });

  it('when a wait is jittered, then it stays within 20% of itself', () => {
    expect(jittered(10_000, 0)).toBe(8000);
    expect(jittered(10_000, 0.5)).toBe(10_000);
    expect(jittered(10_000, 0.9999)).toBeCloseTo(11_999.6, 1);
    for (let i = 0; i < 100; i++) {
      const ms = jittered(1000);
      expect(ms).toBeGreaterThanOrEqual(800);
      expect(ms).toBeLessThan(1200);
    }
  });

  it('when a claim or a room check fails, then the retry comes after 1 to 2 s', () => {
    expect(retryWaitMs(0)).toBe(1000);
    expect(retryWaitMs(0.5)).toBe(1500);
    for (let i = 0; i < 100; i++) expect(retryWaitMs()).toBeGreaterThanOrEqual(1000);
    for (let i = 0; i < 100; i++) expect(retryWaitMs()).toBeLessThan(2000);
  });

  it("when an SMS is handed, then the phone's ack is awaited until 2 s before the lease ends, at least 1 s", () => {
    expect(ackDeadlineMs(30_000)).toBe(28_000);
    expect(ackDeadlineMs(3000)).toBe(1000);
    expect(ackDeadlineMs(1000)).toBe(1000);
  });

  it('when a phone has no room, or only SIMs in quarantine or in their pause, then it waits just past the moment room comes, at most the re-check', () => {
    expect(roomWaitMs(2000, 15_000)).toBe(2005);
    expect(roomWaitMs(3_600_000, 15_000)).toBe(15_000);
    expect(probeWaitMs(15_000, 500)).toBe(505);
    expect(probeWaitMs(15_000, Infinity)).toBe(15_000);
    expect(holdWaitMs(700)).toBe(705);
  });
});
