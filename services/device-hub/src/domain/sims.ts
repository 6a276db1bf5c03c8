// A phone's SIMs (protocol 4): reading what the agent reported, and choosing the slot each SMS
// goes through. Pure: no I/O, the slots with room and the last slot used are given.

/** The highest SIM slot a phone may name. */
export const MAX_SIM_SLOT = 8;
const MAX_SIM_TEXT = 64;

/** One active SIM as the agent reported it. */
export interface SimInfo {
  /** 1 for the first slot. */
  slot: number;
  carrier?: string;
  /** E.164 when the phone knows it. */
  number?: string;
}

export type SimRuleName = 'round_robin' | 'default';

/** How a phone with several SIMs picks one when the caller named none (the client's setting). */
export interface SimRule {
  rule: SimRuleName;
  /** 1 to 8; used by the `default` rule. */
  defaultSim: number;
}

export const DEFAULT_SIM_RULE: SimRule = { rule: 'round_robin', defaultSim: 1 };

/** Whether `value` is a SIM slot (an integer from 1 to 8). */
export const isSimSlot = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_SIM_SLOT;

const optionalText = (value: unknown): string | undefined | false => {
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' && value.length <= MAX_SIM_TEXT ? value : false;
};

/**
 * The SIMs of an `agent_hello.sims` (or a stored row), ordered by slot: entries that are not an
 * object, whose slot is not 1 to 8 or already listed, or whose carrier or number is not a string
 * of at most 64 characters, are left out; at most 8 are kept.
 */
export function simsOf(value: unknown): SimInfo[] {
  if (!Array.isArray(value)) return [];
  const out: SimInfo[] = [];
  for (const entry of value as unknown[]) {
    if (out.length === MAX_SIM_SLOT) break;
    if (typeof entry !== 'object' || entry === null) continue;
    const { slot, carrier, number } = entry as Record<string, unknown>;
    if (!isSimSlot(slot) || out.some((s) => s.slot === slot)) continue;
    const carrierText = optionalText(carrier);
    const numberText = optionalText(number);
    if (carrierText === false || numberText === false) continue;
    out.push({ slot, ...(carrierText ? { carrier: carrierText } : {}), ...(numberText ? { number: numberText } : {}) });
  }
  return out.sort((a, b) => a.slot - b.slot);
}

/** The number of the SIM in `slot` (else of the first SIM with one), as the phone reported it; undefined when none has one. */
export function simNumberOf(sims: readonly SimInfo[], slot: number | undefined): string | undefined {
  return sims.find((s) => s.slot === slot)?.number ?? sims.find((s) => s.number)?.number;
}

/** The client's rule as the account service gives it; anything unknown is the default rule. */
export function simRuleOf(rule: string, defaultSim: number): SimRule {
  return {
    rule: rule === 'default' ? 'default' : 'round_robin',
    defaultSim: isSimSlot(defaultSim) ? defaultSim : 1,
  };
}

/** The slot the `default` rule prefers on a phone with these slots (ascending): default_sim, else its first. */
export const preferredSim = (slots: readonly number[], rule: SimRule): number =>
  slots.includes(rule.defaultSim) ? rule.defaultSim : slots[0]!;

export interface SimChoice {
  /** The message's requested SIM (0: none). */
  requested: number;
  /** The phone's slots, ascending. */
  slots: readonly number[];
  /** The slots with room now (a subset of `slots`). */
  withRoom: readonly number[];
  rule: SimRule;
  /** The slot the last SMS of this phone went through (0: none yet). */
  lastSlot: number;
}

/**
 * The slot an SMS goes through (0: none, the phone's default SIM). The requested one always; a
 * phone with fewer than 2 known SIMs gets none. Else, by the client's rule: `round_robin` is the
 * first slot with room after the last one used (cyclically); `default` is `defaultSim` when the
 * phone has it, else its first slot. When that slot has no room, the first other slot with room
 * takes the SMS (the limits are per SIM and never exceeded; the session waits out a mere pause
 * of the preferred SIM instead, see `SessionSims.holdMs`); with no slot with room, the rule's slot.
 */
export function chooseSim({ requested, slots, withRoom, rule, lastSlot }: SimChoice): number {
  if (requested > 0) return requested;
  if (slots.length < 2) return 0;
  const hasRoom = (slot: number) => withRoom.includes(slot);
  if (rule.rule === 'default') {
    const preferred = preferredSim(slots, rule);
    if (hasRoom(preferred)) return preferred;
    return slots.find(hasRoom) ?? preferred;
  }
  const start = slots.findIndex((slot) => slot > lastSlot);
  const order = start < 0 ? [...slots] : [...slots.slice(start), ...slots.slice(0, start)];
  return order.find(hasRoom) ?? order[0]!;
}
