import type { SmsError } from './gen/openapi-types';

/** The data of sms.sent, sms.delivered and sms.failed. */
export interface MessageEventData {
  message_id: string;
  status: 'sent' | 'delivered' | 'failed';
  to: string;
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

interface EventBase {
  /** The same on every attempt and replay: de-duplicate on it. */
  event_id: string;
  /** When this attempt was signed (not when the event happened: that is in `data`). */
  timestamp: string;
}

/** A webhook delivery's body, as docs/api/webhooks.md describes it. */
export type WebhookEvent =
  | (EventBase & { event: 'sms.sent' | 'sms.delivered' | 'sms.failed'; data: MessageEventData })
  | (EventBase & { event: 'device.connected' | 'device.disconnected'; data: DeviceEventData });
