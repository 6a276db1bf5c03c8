import { chooseSim, simRuleOf, simsOf, type SimRule } from '../src/domain/sims';
import { reportOf } from '../src/sessions/agent-frames';

/** Protocol 4's rules without I/O: reading agent_hello.sims, choosing a SIM, the SIM of a report. */

describe('simsOf (agent_hello.sims)', () => {
  it('when the SIMs are well formed, then they are kept ordered by slot, unknown fields left out', () => {
    expect(
      simsOf([
        { slot: 2, carrier: 'Free' },
        { slot: 1, carrier: 'Orange', number: '+33612345678' },
      ]),
    ).toEqual([
      { slot: 1, carrier: 'Orange', number: '+33612345678' },
      { slot: 2, carrier: 'Free' },
    ]);
  });

  it('when entries are bad, then only those are left out, and at most 8 are kept', () => {
    expect(
      simsOf([
        { slot: 1 },
        { slot: 1, carrier: 'again' },
        { slot: 0 },
        { slot: 9 },
        { slot: 2.5 },
        { slot: '3' },
        { slot: 3, carrier: 'x'.repeat(65) },
        { slot: 4, number: 12 },
        null,
        'slot 5',
        { slot: 6, carrier: 'x'.repeat(64) },
      ]),
    ).toEqual([{ slot: 1 }, { slot: 6, carrier: 'x'.repeat(64) }]);
    expect(simsOf(Array.from({ length: 12 }, (_, i) => ({ slot: (i % 8) + 1 })))).toHaveLength(8);
    expect(simsOf('two')).toEqual([]);
    expect(simsOf(undefined)).toEqual([]);
  });
});

describe('chooseSim', () => {
  const roundRobin: SimRule = { rule: 'round_robin', defaultSim: 1 };
  const choose = (over: Partial<Parameters<typeof chooseSim>[0]>) =>
    chooseSim({ requested: 0, slots: [1, 2], withRoom: [1, 2], rule: roundRobin, lastSlot: 0, ...over });

  it('when the caller asked for a SIM, then it is that SIM, whatever the phone knows', () => {
    expect(choose({ requested: 2, rule: { rule: 'default', defaultSim: 1 } })).toBe(2);
    expect(choose({ requested: 3, slots: [] })).toBe(3);
  });

  it('when the phone has 0 or 1 known SIM, then no SIM is chosen', () => {
    expect(choose({ slots: [], withRoom: [] })).toBe(0);
    expect(choose({ slots: [1], withRoom: [] })).toBe(0);
  });

  it('when the rule is round robin, then it is the next slot with room after the last one used', () => {
    expect(choose({ lastSlot: 0 })).toBe(1);
    expect(choose({ lastSlot: 1 })).toBe(2);
    expect(choose({ lastSlot: 2 })).toBe(1);
    expect(choose({ slots: [1, 2, 3], withRoom: [1, 3], lastSlot: 1 })).toBe(3);
    expect(choose({ slots: [1, 2, 3], withRoom: [2], lastSlot: 2 })).toBe(2);
  });

  it('when the rule is default, then it is default_sim if the phone has it, else its first slot; a full one gives way to a slot with room', () => {
    expect(choose({ rule: { rule: 'default', defaultSim: 2 } })).toBe(2);
    expect(choose({ rule: { rule: 'default', defaultSim: 3 } })).toBe(1);
    expect(choose({ slots: [2, 3], withRoom: [2, 3], rule: { rule: 'default', defaultSim: 5 } })).toBe(2);
    expect(choose({ withRoom: [1], rule: { rule: 'default', defaultSim: 2 } })).toBe(1);
  });

  it("when the account service's rule is unknown or its default_sim out of range, then round robin and slot 1", () => {
    expect(simRuleOf('', 0)).toEqual({ rule: 'round_robin', defaultSim: 1 });
    expect(simRuleOf('default', 9)).toEqual({ rule: 'default', defaultSim: 1 });
    expect(simRuleOf('default', 2)).toEqual({ rule: 'default', defaultSim: 2 });
  });
});

describe('reportOf: the SIM of a report', () => {
  const at = new Date().toISOString();
  it('when the report names a slot from 1 to 8, then it is relayed; anything else is left out', () => {
    expect(reportOf({ status: 'sent', at, sim: 2 }, 'msg_1', 'device_1', Date.now())).toMatchObject({ sim: 2 });
    for (const sim of [0, 9, 1.5, '2', null]) {
      expect(reportOf({ status: 'sent', at, sim }, 'msg_1', 'device_1', Date.now())).not.toHaveProperty('sim');
    }
  });
});
