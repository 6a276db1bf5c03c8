import type { SmsError } from './gen/openapi-types';

/**
 * The data of sms.sent, sms.delivered and sms.failed. An sms.failed's `error.code` is one of the
 * failure codes (SmsErrorCode): OPTED_OUT for a message to a number on the suppression list (it
 * never reached a phone).
 */
export interface MessageEventData {
  message_id: string;
  status: 'sent' | 'delivered' | 'failed';
  to: string;
  /** The SIM slot the phone sent through (1 to n), or null when unknown (its default SIM). */
  sim: number | null;
  sent_at?: string;
  delivered_at?: string;
  failed_at?: string;
  error?: SmsError;
  batch_id?: string;
  metadata: Record<string, unknown>;
  [key: string]: unknown;
}

/** The data of device.connected and device.disconnected. */
export interface DeviceEventData {
  device_id: string;
  client_id: string;
  name: string;
  at: string;
  reason: string;
  [key: string]: unknown;
}

/** The data of sms.received: an SMS one of the client's phones received (docs/api/receiving.md). */
export interface ReceivedEventData {
  /** `rcv_…`, the received SMS's id (GET /v1/sms/inbox/:id). */
  id: string;
  /** The sender as the network gave it: an E.164 number, a short code or an alphanumeric sender name. */
  from: string;
  device_id: string;
  /** The SIM slot (1 to n), or null when the phone does not say. */
  sim: number | null;
  /** The whole text. */
  message: string;
  received_at: string;
  /** The id of the message sent with `replies: true` that this SMS answers, or null. */
  in_reply_to: string | null;
  [key: string]: unknown;
}

/**
 * The data of otp.fraud_suspected (opt-in: an endpoint gets it only when it names it): the pumping
 * guard held a prefix or a country of the client's OTPs (docs/api/otp.md).
 */
export interface FraudSuspectedEventData {
  /** `hold_…`: release it in the dashboard. */
  hold_id: string;
  scope: 'prefix' | 'country';
  /** The number without its last 4 digits (`+3361234`), or the country's calling code (`+33`). */
  prefix: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** Codes asked for and verified in the window that tripped it. */
  requests: number;
  verified: number;
  conversion_rate: number;
  window_seconds: number;
  held_at: string;
  held_until: string;
  [key: string]: unknown;
}

/** A SIM's last results counted by cause (only the causes seen). */
export type SimResultCounts = Partial<
  Record<'sent' | 'generic_failure' | 'limit_exceeded' | 'no_service' | 'radio_off' | 'no_credit' | 'recipient_failure', number>
>;

/**
 * The data of device.degraded (opt-in): one of the client's SIMs was quarantined, its failures
 * past the owner's thresholds (docs/owners/phones.md, SIM health and quarantine).
 */
export interface SimDegradedEventData {
  device_id: string;
  client_id: string;
  name: string;
  at: string;
  /** The SIM slot (1 on a phone of one SIM). */
  sim: number;
  state: 'quarantined';
  reason: 'consecutive_failures' | 'failure_ratio';
  recent_results: SimResultCounts;
  /** When one probe message will be tried. */
  probe_after: string;
  [key: string]: unknown;
}

/** The data of device.recovered (opt-in): the SIM was released, by a probe sent or by hand in the dashboard. */
export interface SimRecoveredEventData {
  device_id: string;
  client_id: string;
  name: string;
  at: string;
  sim: number;
  state: 'healthy';
  reason: 'probe' | 'manual';
  recent_results: SimResultCounts;
  [key: string]: unknown;
}

/** The data of device.battery_low (opt-in): a phone at 15 % or less and not charging, once per episode. */
export interface BatteryLowEventData {
  device_id: string;
  client_id: string;
  name: string;
  /** 0 to 100, or null when the phone did not say. */
  battery: number | null;
  charging: false;
  /** When the phone reported it. */
  at: string;
  [key: string]: unknown;
}

/** The data of device.offline (opt-in): a phone offline longer than its account's delay, once per offline spell. */
export interface OfflineEventData {
  device_id: string;
  client_id: string;
  name: string;
  /** When the phone was last seen. */
  offline_since: string;
  /** The account's delay, in seconds. */
  threshold_seconds: number;
  [key: string]: unknown;
}

interface EventBase {
  /** The same on every attempt and replay: de-duplicate on it. */
  event_id: string;
  /** When this attempt was signed (not when the event happened: that is in `data`). */
  timestamp: string;
}

/** A webhook delivery's body, as docs/api/webhooks.md describes it. */
export type WebhookEvent =
  | (EventBase & { event: 'sms.sent' | 'sms.delivered' | 'sms.failed'; data: MessageEventData })
  | (EventBase & { event: 'device.connected' | 'device.disconnected'; data: DeviceEventData })
  | (EventBase & { event: 'sms.received'; data: ReceivedEventData })
  | (EventBase & { event: 'otp.fraud_suspected'; data: FraudSuspectedEventData })
  | (EventBase & { event: 'device.degraded'; data: SimDegradedEventData })
  | (EventBase & { event: 'device.recovered'; data: SimRecoveredEventData })
  | (EventBase & { event: 'device.battery_low'; data: BatteryLowEventData })
  | (EventBase & { event: 'device.offline'; data: OfflineEventData });
