import { decodeJsonPayload } from './payload';

/** Payloads carried on JetStream between services (not the public API). */

export const AGENT_REPORT_STATUSES = ['accepted', 'sent', 'delivered', 'failed'] as const;
export type AgentReportStatus = (typeof AGENT_REPORT_STATUSES)[number];

export const FAILURE_CODES = [
  'INVALID_NUMBER',
  'OUT_OF_NETWORK',
  'INSUFFICIENT_CREDIT',
  'BLACKLISTED',
  'EXPIRED',
  'DEVICE_ERROR',
  'DEVICE_REMOVED',
  'OPTED_OUT',
  // An encrypted message the phone could not open, or whose plain text is over 1,600 characters (docs/api/encryption.md).
  'DECRYPTION_FAILED',
  'MESSAGE_TOO_LONG',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** What a phone said about a message, as the device-hub publishes it on `agent.report.<device>`. */
export interface AgentReport {
  message_id: string;
  device_id: string;
  status: AgentReportStatus;
  /** When it happened on the phone (RFC 3339). */
  at: string;
  error?: { code: FailureCode; message: string };
  /**
   * With `failed`: the phone is sure nothing of the SMS left it (the radio
   * refused it: no service, radio off, generic failure, limit exceeded), so
   * another phone may send it without sending it twice (protocol 2).
   */
  not_sent?: boolean;
  /**
   * Set by the hub on a `not_sent` failure when another phone of the client
   * is online: the message service then tries the message once more on
   * another phone instead of failing it.
   */
  retry_elsewhere?: boolean;
  /**
   * The SIM slot (1 to n) the phone sent through, when it says (protocol 4);
   * absent otherwise (the message keeps the SIM the hub chose at its ack).
   */
  sim?: number;
}

export type PublicEventKind =
  | 'sms.sent'
  | 'sms.delivered'
  | 'sms.failed'
  | 'sms.received'
  | 'device.connected'
  | 'device.disconnected'
  // Opt-in: only endpoints that name it get it (never a message's webhook_url).
  | 'otp.fraud_suspected'
  // Opt-in: a SIM quarantined (SIM health), and released.
  | 'device.degraded'
  | 'device.recovered'
  // Opt-in: a phone low on battery and not charging, once per episode.
  | 'device.battery_low'
  // Opt-in: a phone offline longer than its account's delay, once per offline spell.
  | 'device.offline';

/**
 * An SMS a phone received, as the device-hub publishes it on `agent.received.<device>` (JetStream,
 * `Nats-Msg-Id` = `<device_id>:<received_id>`, so a phone's resend within the stream's duplicate
 * window is dropped; the message service's unique key catches any later one).
 */
export interface AgentReceived {
  /** The phone's own id of the received SMS (protocol 3): the same on every resend. */
  received_id: string;
  device_id: string;
  client_id: string;
  mode: 'live' | 'test';
  /** The sender, as the network gave it (E.164 when it is a number; may be an alphanumeric name). */
  from: string;
  /** The whole text (multipart reassembled by the phone). */
  text: string;
  /** The SIM slot it arrived on, 1 to n; absent when the phone does not say. */
  sim?: number;
  /**
   * The number of the SIM it arrived on (else of the phone's first SIM with one), as the phone
   * reported it (agent_hello.sims); absent when unknown. Its country is the phone's: a sender
   * written the national way is read in it.
   */
  sim_number?: string;
  /** When it arrived on the phone (RFC 3339). */
  received_at: string;
  /**
   * Protocol 8, with an encrypted `text` only: the opt-out or start keyword the phone matched on the
   * plain text, which the platform cannot read (docs/api/encryption.md).
   */
  keyword?: { action: 'add' | 'remove'; keyword: string };
}

/**
 * A public event as published on `events.<kind>`: the webhook envelope
 * (`event`, `event_id`, `timestamp`, `data`) plus routing fields the webhook
 * service strips before delivery.
 */
export interface PublicEvent {
  event: PublicEventKind;
  event_id: string;
  timestamp: string;
  data: Record<string, unknown>;
  routing: {
    client_id: string;
    mode: 'live' | 'test';
    webhook_url?: string;
    /** The trace the event continues, when it travels in an `EventBatch` (one message's headers cannot carry each event's). */
    traceparent?: string;
  };
}

/** A report as a hub replica gathers it into a `ReportBatch`, with the trace it continues. */
export interface BatchedReport extends AgentReport {
  traceparent?: string;
}

/** What a phone's record says it did with one SMS, as its digest lists it (protocol 7). */
export interface DigestEntry {
  message_id: string;
  state: 'accepted' | 'sending' | 'sent' | 'delivered' | 'failed';
  parts: number;
  parts_sent: number;
  parts_failed: number;
  parts_delivered: number;
  /** RFC 3339, the phone's clock, as every time of the digest. */
  accepted_at: string;
  sent_at?: string;
  delivered_at?: string;
  failed_at?: string;
  error?: { code: FailureCode; message: string };
  not_sent?: boolean;
  sim?: number;
}

/**
 * One frame of a phone's digest (protocol 7): every SMS handed to it between `covers_from` and
 * `covers_to` (its clock), with what it did with each. `received_at` is the hub's clock when the
 * frame came, against the phone's `at`: the message service corrects the phone's times with it.
 */
export interface DeviceDigest {
  device_id: string;
  digest_id: string;
  chunk: number;
  chunks: number;
  at: string;
  received_at: string;
  covers_from: string;
  covers_to: string;
  entries: DigestEntry[];
}

/**
 * Many phones' reports in one JetStream message, on `agent.reports.<hub instance>`; or a phone's
 * digest (`digests`, protocol 7, with no reports: a message service that does not know digests
 * applies nothing and acknowledges it).
 */
export interface ReportBatch {
  reports: BatchedReport[];
  digests?: DeviceDigest[];
}

/** Many public events in one JetStream message, on `event-batches.<publisher>`. */
export interface EventBatch {
  events: PublicEvent[];
}

/** The reports of a `ReportBatch`, or undefined when the bytes are not one (each report is checked by its consumer). */
export function decodeReportBatch(bytes: Uint8Array): unknown[] | undefined {
  const batch = decodeJsonPayload<{ reports?: unknown }>(bytes);
  return batch && Array.isArray(batch.reports) ? batch.reports : undefined;
}

/** The digests of a `ReportBatch` (none for a batch of reports), each checked by its consumer. */
export function decodeDigests(bytes: Uint8Array): unknown[] {
  const batch = decodeJsonPayload<{ digests?: unknown }>(bytes);
  return batch && Array.isArray(batch.digests) ? batch.digests : [];
}

/** The events of an `EventBatch`, or undefined when the bytes are not one (each event is checked by its consumer). */
export function decodeEventBatch(bytes: Uint8Array): unknown[] | undefined {
  const batch = decodeJsonPayload<{ events?: unknown }>(bytes);
  return batch && Array.isArray(batch.events) ? batch.events : undefined;
}

/** The French sentence that goes with each failure code in `sms.failed`. */
export const FAILURE_MESSAGES: Record<FailureCode, string> = {
  INVALID_NUMBER: 'Numéro de destinataire invalide.',
  OUT_OF_NETWORK: 'Destinataire hors réseau.',
  INSUFFICIENT_CREDIT: 'Crédit insuffisant sur le téléphone émetteur.',
  BLACKLISTED: "Numéro bloqué par l'opérateur.",
  EXPIRED: "Le message n'a pas pu être envoyé à temps.",
  DEVICE_ERROR: "Le téléphone n'a pas pu envoyer le message.",
  DEVICE_REMOVED: 'Le téléphone a été retiré du compte.',
  OPTED_OUT: 'Le destinataire a demandé à ne plus recevoir de SMS de ce compte.',
  DECRYPTION_FAILED: "Le téléphone n'a pas pu déchiffrer le message.",
  MESSAGE_TOO_LONG: 'Le texte déchiffré dépasse 1600 caractères.',
};

/**
 * Recipients that end `failed` with a given cause, in test mode and with the
 * agent's simulator driver (which keeps its own copy: it runs on phones
 * without this library). Every other valid number is delivered.
 */
export const MAGIC_NUMBERS: Readonly<Record<string, FailureCode>> = {
  '+33600000001': 'INVALID_NUMBER',
  '+33600000002': 'OUT_OF_NETWORK',
  '+33600000003': 'INSUFFICIENT_CREDIT',
  '+33600000004': 'BLACKLISTED',
};
