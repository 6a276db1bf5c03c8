import type { ReportStatus, Sms, SmsError } from './protocol';

export type OutboxState = 'accepted' | 'sending' | 'sent' | 'delivered' | 'failed';

export interface PendingReport {
  status: ReportStatus;
  at: string;
  error?: SmsError;
  /** With `failed`: nothing of the SMS left the phone (protocol 2); kept so a re-sent report says it too. */
  not_sent?: boolean;
  /** The SIM slot the SMS went through, when the driver knew it (protocol 4). */
  sim?: number;
}

/** One file `<data-dir>/outbox/<message_id>.json`. */
export interface OutboxEntry extends Sms {
  state: OutboxState;
  /** Reports not yet acknowledged by the hub with `report_ack`, oldest first. */
  pending_reports: PendingReport[];
  updated_at: string;
  /** Order of acceptance: SMS are sent in this order, also after a restart. */
  seq: number;
}

export const STATES: readonly OutboxState[] = ['accepted', 'sending', 'sent', 'delivered', 'failed'];

export const NEXT_STATES: Record<OutboxState, readonly OutboxState[]> = {
  // An entry that expired before it began to send fails without sending (protocol 2).
  accepted: ['sending', 'failed'],
  sending: ['sent', 'failed'],
  // A phone may learn that an SMS it sent was not delivered.
  sent: ['delivered', 'failed'],
  delivered: [],
  failed: [],
};

export const INTERRUPTED_SEND_ERROR: SmsError = {
  code: 'DEVICE_ERROR',
  message: 'the agent stopped while sending this SMS; it may or may not have left the phone, so it is not sent again',
};

export const EXPIRED_ERROR: SmsError = {
  code: 'EXPIRED',
  message: 'the SMS expired before the phone began to send it; it was not sent',
};

/** The SMS an entry holds, as the send loop takes it. */
export function smsOf(entry: OutboxEntry): Sms {
  return {
    message_id: entry.message_id,
    to: entry.to,
    text: entry.text,
    ...(entry.traceparent ? { traceparent: entry.traceparent } : {}),
    ...(entry.expires_at ? { expires_at: entry.expires_at } : {}),
    ...(entry.sim !== undefined ? { sim: entry.sim } : {}),
  };
}

/** An entry read back from its file, or undefined when the file is not one (moved aside by the caller). */
export function parseEntry(content: string): OutboxEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const entry = value as Partial<OutboxEntry>;
  const valid =
    typeof entry.message_id === 'string' &&
    typeof entry.to === 'string' &&
    typeof entry.text === 'string' &&
    typeof entry.state === 'string' &&
    STATES.includes(entry.state) &&
    Array.isArray(entry.pending_reports) &&
    typeof entry.updated_at === 'string' &&
    typeof entry.seq === 'number' &&
    // Entries written by protocol 1 agents have no expiry: they keep working.
    (entry.expires_at === undefined || typeof entry.expires_at === 'string') &&
    // Entries written before protocol 4 have no SIM: they go through the default one.
    (entry.sim === undefined || typeof entry.sim === 'number');
  return valid ? (entry as OutboxEntry) : undefined;
}
