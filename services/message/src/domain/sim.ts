import { AppError } from '@smsgw/platform';

/** The highest SIM slot a phone may have (protocol 4). */
export const MAX_SIM = 8;

const isSlot = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_SIM;

/** The SIM a caller asks for: 1 to 8, or 0 (absent) for the phone's choice; anything else VALIDATION_ERROR naming `field`. */
export function requestedSim(value: number | undefined, field = 'sim'): number {
  const sim = value ?? 0;
  if (sim === 0 || isSlot(sim)) return sim;
  throw new AppError('VALIDATION_ERROR', {
    message: `${field} doit être un entier de 1 à ${MAX_SIM}.`,
    details: [{ field, code: 'VALIDATION_ERROR' }],
  });
}

/** A slot the hub or a phone reports (accept, report): 1 to 8, anything else 0 (unknown, the message keeps its own). */
export const reportedSim = (value: unknown): number => (isSlot(value) ? value : 0);

/** The slots of a claim's `sims_with_room` that can be slots at all; empty: no SIM filter. */
export const slotsWithRoom = (values: readonly number[] | undefined): number[] => [...new Set((values ?? []).filter(isSlot))];

/** `replies` asks for a webhook_url to send the replies to: VALIDATION_ERROR naming `replies` without one. */
export function repliesOf(replies: boolean | undefined, webhookUrl: string | null): boolean {
  if (replies !== true) return false;
  if (!webhookUrl)
    throw new AppError('VALIDATION_ERROR', {
      message: 'replies demande une webhook_url.',
      details: [{ field: 'replies', code: 'VALIDATION_ERROR' }],
    });
  return true;
}
