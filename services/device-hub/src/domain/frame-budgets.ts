// What a phone may send the hub (PROTOCOL.md §3, budgets): the size of a received SMS, and the
// weight each frame has in its phone's and its client's budgets.
import { measureSms } from '@smsgw/platform';

/** The frames with a budget. */
export type BudgetKind = 'received' | 'ack' | 'report';

/** Per window: what one phone, and all the phones of one client, may send of each kind. */
export interface Budgets {
  windowMs: number;
  received: { device: number; client: number };
  ack: { device: number; client: number };
  report: { device: number; client: number };
}

/**
 * The longest text a received SMS can have: a phone reassembles at most 255 parts (the
 * concatenation header counts them in one byte), each at most 153 GSM-7 characters; a UCS-2 part
 * holds 67 UTF-16 units, fewer. Counted in UTF-16 units, so that no SMS a phone can receive is
 * refused; anything longer did not come from the network.
 */
export const MAX_RECEIVED_PARTS = 255;
export const MAX_RECEIVED_TEXT = MAX_RECEIVED_PARTS * 153;

/** A received SMS weighs its parts, as the network carried it (GSM-7 or UCS-2); at least 1. */
export const receivedWeight = (text: string): number => Math.max(1, Math.min(MAX_RECEIVED_PARTS, measureSms(text).parts));
