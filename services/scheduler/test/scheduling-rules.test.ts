import { jobsWithPeriods, jobTimersAt, PERIODIC_JOBS, periodStart } from '../src/domain/periodic-jobs';
import { fireMessageId, parseTimerRequest, sleepMs } from '../src/domain/timers';

describe('scheduling rules', () => {
  it('when the next timer is due in some time, then the replica sleeps until then, never past the safety net, and never a negative time', () => {
    expect(sleepMs(250.2, 30_000)).toBe(252);
    expect(sleepMs(-5000, 30_000)).toBe(0);
    expect(sleepMs(90_000, 30_000)).toBe(30_000);
    expect(sleepMs(null, 30_000)).toBe(30_000);
  });

  it('when periods are computed on two replicas, then both find the same boundaries and the same timer keys', () => {
    const job = { ...PERIODIC_JOBS[0]!, periodMs: 3_600_000 };
    const at = Date.parse('2030-01-02T10:17:00Z');
    expect(new Date(periodStart(job.periodMs, at)).toISOString()).toBe('2030-01-02T10:00:00.000Z');
    expect(jobTimersAt(job, at).map((t) => t.key)).toEqual([
      `job:${job.name}:2030-01-02T10:00:00.000Z`,
      `job:${job.name}:2030-01-02T11:00:00.000Z`,
    ]);
    expect(jobTimersAt(job, at + 1000).map((t) => t.key)).toEqual(jobTimersAt(job, at).map((t) => t.key));
  });

  it('when a job period is overridden by an unknown name, then start-up is refused', () => {
    expect(() => jobsWithPeriods({ 'nope.job': 1000 })).toThrow('nope.job');
    expect(jobsWithPeriods({ 'message.retention': 5000 }).find((j) => j.name === 'message.retention')!.periodMs).toBe(5000);
  });

  it('when a fire is repeated, then its message id is the same', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    expect(fireMessageId('msg-due:msg_1', at)).toBe('msg-due:msg_1:2030-01-01T00:00:00.000Z');
  });

  it('when a timer targets a subject outside the timers stream, or has an oversized payload, then it is refused', () => {
    const ok = { key: 'k', fireAt: '2030-01-01T00:00:00Z', subject: 'p.timers.message.due', payload: Buffer.from('{}') };
    expect(parseTimerRequest(ok, 'p.timers.').subject).toBe('p.timers.message.due');
    expect(() => parseTimerRequest({ ...ok, subject: 'p.timers.>' }, 'p.timers.')).toThrow();
    expect(() => parseTimerRequest({ ...ok, subject: 'p.timers.' }, 'p.timers.')).toThrow();
    expect(() => parseTimerRequest({ ...ok, payload: Buffer.alloc(64 * 1024 + 1) }, 'p.timers.')).toThrow();
    expect(() => parseTimerRequest({ ...ok, key: 'x'.repeat(201) }, 'p.timers.')).toThrow();
  });
});
