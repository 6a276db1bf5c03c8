/**
 * Delivery receipts and message states: the SMPP 3.4 `message_state` values (section 5.2.28) and
 * the usual receipt text of its appendix B, `id:… sub:001 dlvrd:001 submit date:… done date:…
 * stat:DELIVRD err:000 text:…`.
 */
import { receiptDate } from './smpp-time';

export const MESSAGE_STATE = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;
export type MessageState = keyof typeof MESSAGE_STATE;

/** Our message statuses as SMPP states: waiting ones are en route, cancelled is deleted. */
export function stateOfStatus(status: string, errorCode = ''): MessageState {
  switch (status) {
    case 'delivered':
      return 'DELIVERED';
    case 'failed':
      return errorCode === 'EXPIRED' ? 'EXPIRED' : errorCode === 'OPTED_OUT' || errorCode === 'BLACKLISTED' ? 'REJECTED' : 'UNDELIVERABLE';
    case 'cancelled':
      return 'DELETED';
    case 'pending':
    case 'queued':
    case 'scheduled':
    case 'sending':
    case 'sent':
      return 'ENROUTE';
    default:
      return 'UNKNOWN';
  }
}

/** The receipt's `stat:` word of each state (7 characters, as Kannel and Jasmin read them). */
const STAT: Record<MessageState, string> = {
  ENROUTE: 'ENROUTE',
  DELIVERED: 'DELIVRD',
  EXPIRED: 'EXPIRED',
  DELETED: 'DELETED',
  UNDELIVERABLE: 'UNDELIV',
  ACCEPTED: 'ACCEPTD',
  UNKNOWN: 'UNKNOWN',
  REJECTED: 'REJECTD',
};

/** Our failure codes as the receipt's three-digit `err:` (000 for a delivery). */
const ERR: Record<string, string> = {
  INVALID_NUMBER: '001',
  OUT_OF_NETWORK: '002',
  INSUFFICIENT_CREDIT: '003',
  BLACKLISTED: '004',
  EXPIRED: '005',
  DEVICE_ERROR: '006',
  DEVICE_REMOVED: '007',
  OPTED_OUT: '008',
};

export interface Receipt {
  messageId: string;
  state: MessageState;
  errorCode: string;
  submittedAt: Date;
  doneAt: Date;
  /** The message's text; its first 20 characters go in the receipt. */
  text: string;
}

export function receiptText(r: Receipt): string {
  const delivered = r.state === 'DELIVERED' ? '001' : '000';
  const err = r.errorCode ? (ERR[r.errorCode] ?? '099') : '000';
  return (
    `id:${r.messageId} sub:001 dlvrd:${delivered} submit date:${receiptDate(r.submittedAt)} done date:${receiptDate(r.doneAt)} ` +
    `stat:${STAT[r.state]} err:${err} text:${Array.from(r.text).slice(0, 20).join('')}`
  );
}

/**
 * Whether `registered_delivery` asks for a receipt of this final state: bits 0-1 are 01 for any
 * final outcome, 10 for failures only (section 5.2.17).
 */
export function wantsReceipt(registeredDelivery: number, state: MessageState): boolean {
  const asked = registeredDelivery & 0x03;
  if (asked === 1) return true;
  if (asked === 2) return state !== 'DELIVERED';
  return false;
}
