import {
  blocked,
  countsByCause,
  crossedThreshold,
  DEFAULT_SIM_HEALTH,
  effectiveSimHealth,
  hasOwnSimHealth,
  healthySim,
  invalidSimHealthFields,
  probeDue,
  probing,
  recordResult,
  resultOf,
  simHealthSettingsOf,
  type SimHealth,
  type SimResult,
} from '../src/domain/sim-health';
import type { AgentReport } from '@smsgw/platform';
import type { DeviceRow } from '../src/data/device-row';
import { SessionHealth } from '../src/sessions/session-health';

/** The SIM health rules without I/O: causes, thresholds, quarantine, probe, release. */

const settings = { ...DEFAULT_SIM_HEALTH, consecutiveFailures: 3, failureRatio: 50, window: 10, minSample: 6, coolDownSeconds: 60 };

function feed(results: SimResult[], start: SimHealth = healthySim(2), now = 1_000) {
  let health = start;
  const changes: string[] = [];
  for (const r of results) {
    const out = recordResult(health, r, settings, now);
    health = out.health;
    if (out.change) changes.push(out.change);
  }
  return { health, changes };
}

describe('resultOf (what a report says of its SIM)', () => {
  it('when a report is sent, delivered or failed, then its cause is read from its code and words', () => {
    expect(resultOf({ status: 'sent' })).toBe('sent');
    expect(resultOf({ status: 'delivered' })).toBeUndefined();
    expect(resultOf({ status: 'failed', error: { code: 'DEVICE_ERROR', message: 'the SMS could not be sent (Android result 1)' } })).toBe(
      'generic_failure',
    );
    expect(resultOf({ status: 'failed', error: { code: 'DEVICE_ERROR', message: "Android's limit of SMS per period was reached" } })).toBe(
      'limit_exceeded',
    );
    expect(resultOf({ status: 'failed', error: { code: 'OUT_OF_NETWORK', message: 'the phone has no mobile service' } })).toBe(
      'no_service',
    );
    expect(resultOf({ status: 'failed', error: { code: 'OUT_OF_NETWORK', message: "the phone's radio is off" } })).toBe('radio_off');
    expect(resultOf({ status: 'failed', error: { code: 'INSUFFICIENT_CREDIT', message: '' } })).toBe('no_credit');
    expect(resultOf({ status: 'failed', error: { code: 'INVALID_NUMBER', message: '' } })).toBe('recipient_failure');
  });
});

describe('thresholds', () => {
  it('when a SIM fails N times in a row, then it is quarantined for its cool-down, and a recipient failure does not break the run', () => {
    const { health, changes } = feed(['sent', 'generic_failure', 'recipient_failure', 'limit_exceeded', 'no_service']);
    expect(changes).toEqual(['quarantined']);
    expect(health).toMatchObject({ state: 'quarantined', reason: 'consecutive_failures', since: 1_000, probeAfter: 61_000 });
    expect(countsByCause(health.recent)).toEqual({ sent: 1, generic_failure: 1, recipient_failure: 1, limit_exceeded: 1, no_service: 1 });
  });

  it('when a success comes between failures, then the run starts again', () => {
    expect(feed(['generic_failure', 'generic_failure', 'sent', 'generic_failure', 'generic_failure']).changes).toEqual([]);
  });

  it('when the faults reach the ratio over a sample of at least minSample, then it is quarantined; below the sample, not', () => {
    const alternating: SimResult[] = ['generic_failure', 'sent', 'generic_failure', 'sent', 'generic_failure'];
    expect(feed(alternating).changes).toEqual([]);
    const { health, changes } = feed([...alternating, 'sent']);
    expect(changes).toEqual(['quarantined']);
    expect(health.reason).toBe('failure_ratio');
    expect(crossedThreshold(['sent', 'sent', 'sent', 'sent', 'generic_failure', 'generic_failure'], settings)).toBeUndefined();
  });

  it('when a rule is 0, then it is off', () => {
    const off = { ...settings, consecutiveFailures: 0, failureRatio: 0 };
    expect(crossedThreshold(Array<SimResult>(10).fill('generic_failure'), off)).toBeUndefined();
  });

  it('when more results come than the window, then only the last ones are kept', () => {
    expect(feed(Array<SimResult>(25).fill('sent')).health.recent).toHaveLength(10);
  });
});

describe('quarantine, probe and release', () => {
  const quarantined = feed(['generic_failure', 'generic_failure', 'generic_failure']).health;

  it('when quarantined, then the SIM is blocked until its cool-down ends, then its next SMS is a probe', () => {
    expect(blocked(quarantined, 60_999)).toBe(true);
    expect(probeDue(quarantined, 60_999)).toBe(false);
    expect(blocked(quarantined, 61_000)).toBe(false);
    expect(probeDue(quarantined, 61_000)).toBe(true);
    // Results of SMS handed before the quarantine change nothing.
    expect(recordResult(quarantined, 'sent', settings, 2_000)).toEqual({
      health: { ...quarantined, recent: [...quarantined.recent, 'sent'] },
    });
  });

  it('when the probe is sent, then the SIM is released with a fresh window', () => {
    const out = recordResult(probing(quarantined, 61_000), 'sent', settings, 62_000);
    expect(out).toEqual({ change: 'released', health: { slot: 2, state: 'healthy', reason: '', recent: ['sent'] } });
  });

  it('when the probe fails, then the quarantine is extended by another cool-down', () => {
    const out = recordResult(probing(quarantined, 61_000), 'no_service', settings, 62_000);
    expect(out.change).toBe('extended');
    expect(out.health).toMatchObject({ state: 'quarantined', reason: 'consecutive_failures', probeAfter: 122_000 });
    expect(blocked(out.health, 100_000)).toBe(true);
  });

  it('when the probe fails for its recipient, or says nothing for long, then another probe is due', () => {
    const inconclusive = recordResult(probing(quarantined, 61_000), 'recipient_failure', settings, 62_000);
    expect(inconclusive.change).toBeUndefined();
    expect(probeDue(inconclusive.health, 62_000)).toBe(true);
    const out = probing(quarantined, 61_000);
    expect(blocked(out, 62_000)).toBe(true);
    expect(probeDue(out, 61_000 + 10 * 60_000)).toBe(true);
  });
});

describe('settings', () => {
  it("when a phone has no thresholds of its own, then it follows its account's, and its own once it has them", () => {
    const account = { ...DEFAULT_SIM_HEALTH, consecutiveFailures: 2, coolDownSeconds: 30 };
    expect(hasOwnSimHealth({})).toBe(false);
    expect(effectiveSimHealth({}, account)).toEqual(account);
    expect(effectiveSimHealth({}, null)).toEqual(DEFAULT_SIM_HEALTH);
    const own = { ...DEFAULT_SIM_HEALTH, consecutiveFailures: 9 };
    expect(hasOwnSimHealth(own)).toBe(true);
    expect(effectiveSimHealth(own, account)).toEqual(own);
  });

  it('when stored settings are missing or wrong, then each falls back to its default', () => {
    expect(simHealthSettingsOf(null)).toEqual(DEFAULT_SIM_HEALTH);
    expect(simHealthSettingsOf({ consecutiveFailures: 2, failureRatio: 'x', window: 1000 })).toEqual({
      ...DEFAULT_SIM_HEALTH,
      consecutiveFailures: 2,
    });
  });

  it('when settings are out of bounds, then their fields are named', () => {
    expect(invalidSimHealthFields(DEFAULT_SIM_HEALTH)).toEqual([]);
    expect(invalidSimHealthFields({ ...DEFAULT_SIM_HEALTH, failureRatio: 101, coolDownSeconds: 0 })).toEqual([
      'failureRatio',
      'coolDownSeconds',
    ]);
    expect(invalidSimHealthFields({ ...DEFAULT_SIM_HEALTH, window: 5, minSample: 6 })).toEqual(['minSample']);
  });
});

describe('what a session writes of its SIMs', () => {
  function session() {
    const noted: SimHealth[] = [];
    const changed: SimHealth[] = [];
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    const health = new SessionHealth(
      { device_id: 'dev_1', client_id: 'cl_1', sim_health_settings: { window: 3 } } as unknown as DeviceRow,
      {
        simHealth: { of: async () => new Map(), save: async () => undefined },
        simHealthWriter: { note: (_d, h) => void noted.push(h), changed: (_d, h) => void changed.push(h) },
        publishSimEvent: async () => undefined,
        releaseQuarantined: async () => undefined,
        clock: () => 1_000,
      },
      quiet,
    );
    return { health, noted, changed };
  }
  const report = (id: string, more: Partial<AgentReport> = {}): AgentReport => ({
    message_id: id,
    device_id: 'dev_1',
    status: 'sent',
    at: '2026-11-29T00:00:00Z',
    ...more,
  });

  it('when a SIM whose window is full of sent SMS sends one more, then nothing is written; when a failure comes, it is', async () => {
    const { health, noted, changed } = session();
    await health.load([1]);
    for (let i = 0; i < 5; i++) health.report(report(`msg_${i}`), 1);
    expect(noted.map((h) => h.recent)).toEqual([['sent'], ['sent', 'sent'], ['sent', 'sent', 'sent']]);
    health.report(report('msg_9', { status: 'failed', error: { code: 'DEVICE_ERROR', message: '' } }), 1);
    expect(noted.at(-1)!.recent).toEqual(['sent', 'sent', 'generic_failure']);
    expect(changed).toEqual([]);
  });

  it('when a report comes again, then it counts once; a failure after the same message was sent counts too', async () => {
    const { health, noted } = session();
    await health.load([1]);
    const failed: Partial<AgentReport> = { status: 'failed', error: { code: 'DEVICE_ERROR', message: '' } };
    health.report(report('msg_1'), 1);
    health.report(report('msg_1'), 1);
    health.report(report('msg_1', failed), 1);
    health.report(report('msg_1', failed), 1);
    expect(noted.map((h) => h.recent)).toEqual([['sent'], ['sent', 'generic_failure']]);
  });
});
