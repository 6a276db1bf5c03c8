// A message as the service stores and reads it (its row, what a send or a batch stores, an
// Idempotency-Key), and the fields a claim and an event take of it. The rules read these types;
// `data/` maps them to SQL (data/message-conditions.ts holds the SQL conditions of a message).
import type { MessageStatus } from './message-status';

export type Mode = 'live' | 'test';

export interface MessageRow {
  message_id: string;
  client_id: string;
  mode: Mode;
  device_id: string;
  batch_id: string | null;
  status: MessageStatus;
  to_number: string;
  body: string;
  priority: number;
  metadata: Record<string, unknown> | null;
  webhook_url: string | null;
  parts: number;
  encoding: string;
  created_at: Date;
  queued_at: Date;
  scheduled_at: Date | null;
  due_at: Date;
  claim_count: number;
  accepted_at: Date | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  cancelled_at: Date | null;
  error_code: string | null;
  error_message: string | null;
  /** An OTP's full text, sealed, until the message is final (see domain/otp-seal.ts). */
  otp_sealed_text: Buffer | null;
  /** Its ttl's end, or an OTP's expiry: not handed out after it. */
  expires_at: Date | null;
  /** A live, unpinned OTP's second sealed copy, for one more try through another phone (see use-cases/otp-fallback.use-case.ts). */
  otp_fallback_text?: Buffer | null;
  /** The trace of the request that queued it. */
  traceparent: string | null;
  /** The client chose its device: it never moves to another phone. */
  pinned: boolean;
  /** Opened to every live phone of its client; the first that claims it becomes its device. */
  fleet: boolean;
  /** The phone a fleet message must not go back to. */
  avoid_device_id: string | null;
  /** Its earlier tries, oldest first; null when none. */
  attempts: EarlierAttempt[] | null;
  /** The SIM slot the caller asked for (1 to 8); 0: none. */
  requested_sim: number;
  /** The SIM slot it goes through (the requested one, then the hub's or the report's); 0: unknown. */
  sim: number;
  /** SMS received from its number within 24 h go to its webhook_url too. */
  replies: boolean;
  /** The campaign it belongs to; null: none. */
  campaign_id: string | null;
  /** Of a paused campaign and untaken: no phone may claim it (it shows `queued`). */
  held: boolean;
  /** What phones' digests repaired on it, oldest first (protocol 7); null: nothing. */
  repairs?: { kind: string; device_id: string; at: string }[] | null;
}

/**
 * Every field of a `MessageRow`, as the statements that return whole rows name them: a prepared
 * statement that returned `*` would fail on its connection once a migration adds a column (old
 * replicas of a rolling upgrade run beside the new one's migration). A `Record` so that the
 * compiler refuses a field of `MessageRow` left out.
 */
const MESSAGE_FIELD_SET: Record<keyof MessageRow, true> = {
  message_id: true,
  client_id: true,
  mode: true,
  device_id: true,
  batch_id: true,
  status: true,
  to_number: true,
  body: true,
  priority: true,
  metadata: true,
  webhook_url: true,
  parts: true,
  encoding: true,
  created_at: true,
  queued_at: true,
  scheduled_at: true,
  due_at: true,
  claim_count: true,
  accepted_at: true,
  sent_at: true,
  delivered_at: true,
  failed_at: true,
  cancelled_at: true,
  error_code: true,
  error_message: true,
  otp_sealed_text: true,
  expires_at: true,
  otp_fallback_text: true,
  traceparent: true,
  pinned: true,
  fleet: true,
  avoid_device_id: true,
  attempts: true,
  requested_sim: true,
  sim: true,
  replies: true,
  campaign_id: true,
  held: true,
  repairs: true,
};
export const MESSAGE_FIELDS = Object.keys(MESSAGE_FIELD_SET) as (keyof MessageRow)[];

/** An earlier try of a message on a phone, as stored in `messages.attempts`. */
export interface EarlierAttempt {
  device_id: string;
  /** `failed`: the phone failed it without sending it; `moved`: taken off a phone that had not taken it. */
  status: 'failed' | 'moved';
  error_code: string | null;
  error_message: string | null;
  /** RFC 3339. */
  at: string;
  /** The SIM slot of that try; absent (attempts stored before) or 0: unknown. */
  sim?: number;
  /** `requeued`: a phone's digest proved the phone never had it (protocol 7). */
  repair?: string;
}

export interface NewMessage {
  messageId: string;
  clientId: string;
  mode: Mode;
  deviceId: string;
  batchId: string | null;
  to: string;
  text: string;
  priority: number;
  metadata: Record<string, unknown> | null;
  webhookUrl: string | null;
  parts: number;
  encoding: string;
  scheduledAt: Date | null;
  /** The request's Idempotency-Key, for a single send (a batch's key goes with the batch). */
  idempotency?: Idempotency | null;
  /** The trace context of the request that queued it (W3C traceparent), continued by the hub. */
  traceparent?: string | null;
  /** Seconds it may wait for a phone from its queueing (or scheduled time); 0 or absent: no limit. */
  ttlSeconds?: number;
  /** The client chose the device: the message never moves. */
  pinned?: boolean;
  /** Its number is on its client's suppression list: stored `failed` / OPTED_OUT, never claimable. */
  optedOut?: boolean;
  /** The SIM slot the caller asked for (1 to 8); 0 or absent: none. */
  requestedSim?: number;
  /** SMS received from `to` within 24 h go to its webhook_url too. */
  replies?: boolean;
  /** The campaign it belongs to: stored held when the campaign is paused. */
  campaignId?: string | null;
  /** Stored open to its client's fleet, no phone chosen: the first live phone that claims it takes it. */
  fleet?: boolean;
  /** An OTP's SMS that may go once more through another phone: its sealed text is kept twice. */
  otpFallback?: boolean;
}

/** An Idempotency-Key and the hash of the request that came with it. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

/** A batch stored with its messages. */
export interface NewBatch {
  batchId: string;
  clientId: string;
  mode: Mode;
  idempotency?: Idempotency | null;
}

/** What an Idempotency-Key already stored points to. */
export interface StoredKey {
  client_id: string;
  mode: Mode;
  idempotency_key: string;
  request_hash: string;
  message_id: string | null;
  batch_id: string | null;
}

export interface PlacedMessage {
  row: MessageRow;
  /** Messages of its device the claim takes before this one. */
  ahead: number;
  /**
   * Whether its device had nothing to claim before this statement: its hub
   * may be asleep and needs a wake-up. A busy device's hub claims again by
   * itself once its phone may send.
   */
  deviceWasIdle: boolean;
}

/** What a phone is handed of a claimed message (`ClaimMany`), and what the claim needs of it. */
export const CLAIMED_FIELDS = [
  'message_id',
  'client_id',
  'device_id',
  'mode',
  'status',
  'to_number',
  'body',
  'priority',
  'expires_at',
  'requested_sim',
  'claim_count',
  'traceparent',
  'otp_sealed_text',
] as const;
export type ClaimedFields = Pick<MessageRow, (typeof CLAIMED_FIELDS)[number]>;

/** What a message's public event says of it (`smsEvent`). */
export const EVENT_FIELDS = [
  'message_id',
  'client_id',
  'mode',
  'device_id',
  'status',
  'to_number',
  'sim',
  'sent_at',
  'delivered_at',
  'failed_at',
  'error_code',
  'error_message',
  'batch_id',
  'metadata',
  'webhook_url',
  // Not in the event: the OTP delivery fallback decides from it that a failed message is an OTP's
  // that may go through another phone, without a query (null for every other message).
  'otp_fallback_text',
] as const;
export type EventFields = Pick<MessageRow, (typeof EVENT_FIELDS)[number]>;
