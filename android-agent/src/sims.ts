import type { SimInfo, SmsError } from './protocol';

/** How many SIMs a simulated phone may have (`--sims`). */
export const MAX_SIMULATED_SIMS = 4;

/** The SIMs of a simulated phone: slots 1..count, carriers "Sim Operator <slot>", numbers unknown. */
export function simulatedSims(count: number): SimInfo[] {
  return Array.from({ length: count }, (_, index) => ({ slot: index + 1, carrier: `Sim Operator ${index + 1}` }));
}

/**
 * Why an SMS cannot go through the SIM it asks for (protocol 4), or nothing. A phone whose SIMs are
 * unknown (`sims: []`) tries any slot: only the phone's own list can say a slot is empty.
 */
export function absentSimError(sim: number | undefined, sims: readonly SimInfo[]): SmsError | undefined {
  if (sim === undefined || sims.length === 0 || sims.some((info) => info.slot === sim)) return undefined;
  return { code: 'DEVICE_ERROR', message: `SIM ${sim} absente` };
}

/**
 * The slot a simulated received SMS arrives on: the one asked when the phone has it, slot 1 when
 * it does not (the hub may not know this phone's SIMs), unknown when none was asked.
 */
export function receivingSim(sim: number | undefined, sims: readonly SimInfo[]): number | undefined {
  if (sim === undefined) return undefined;
  return sims.length === 0 || sims.some((info) => info.slot === sim) ? sim : 1;
}
