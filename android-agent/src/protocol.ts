/**
 * Types and frame parsing of the phone agent protocol, version 8 (see PROTOCOL.md).
 */
import type { DigestFrame } from './digest';
import type { Telemetry } from './telemetry';

export const PROTOCOL_VERSION = 8;
/** The `hello.protocol` values this agent works with: each version adds what an older hub ignores. */
export const SUPPORTED_PROTOCOLS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8];
/** The first protocol whose hub takes `digest` frames. */
export const DIGEST_PROTOCOL = 7;
// The subprotocol names the framing, which version 2 keeps; the version itself is in `hello`.
export const WS_SUBPROTOCOL = 'smsgw.agent.v1';

export type SmsErrorCode =
  | 'INVALID_NUMBER'
  | 'OUT_OF_NETWORK'
  | 'INSUFFICIENT_CREDIT'
  | 'BLACKLISTED'
  | 'EXPIRED'
  | 'DEVICE_ERROR'
  // Protocol 8: an encrypted text that does not open, or whose plain text is over 1,600 characters.
  | 'DECRYPTION_FAILED'
  | 'MESSAGE_TOO_LONG';

export interface SmsError {
  code: SmsErrorCode;
  message: string;
}

export type ReportStatus = 'sent' | 'delivered' | 'failed';

/** What the agent needs to send one SMS. */
export interface Sms {
  message_id: string;
  to: string;
  text: string;
  /** The hub's W3C trace context for this SMS, echoed on its ack and reports (PROTOCOL.md §2). */
  traceparent?: string;
  /** RFC 3339: an SMS not yet begun to send by then is dropped as EXPIRED (protocol 2). */
  expires_at?: string;
  /** The SIM slot to send through (1 for the first; protocol 4); absent: the phone's default SIM. */
  sim?: number;
}

/** One active SIM of the phone, as `agent_hello.sims` lists it (protocol 4). */
export interface SimInfo {
  slot: number;
  carrier?: string;
  /** E.164, when the phone knows it. */
  number?: string;
}

export interface Report {
  message_id: string;
  status: ReportStatus;
  /** RFC 3339, UTC. */
  at: string;
  error?: SmsError;
  /** With `failed`: the phone is sure nothing of the SMS left it (protocol 2). */
  not_sent?: boolean;
  /** The SIM slot the SMS went through, when known (protocol 4). */
  sim?: number;
  /** The SMS's trace context, as the hub sent it. */
  traceparent?: string;
}

export interface HelloFrame {
  type: 'hello';
  protocol: number;
  device_id: string;
  ping_interval_ms?: number;
}

export interface SmsFrame extends Sms {
  type: 'sms';
  priority?: unknown;
  attempt?: number;
}

export interface ReportAckFrame {
  type: 'report_ack';
  message_id: string;
  status: ReportStatus;
}

export interface ReconnectFrame {
  type: 'reconnect';
  after_ms: number;
}

/** Protocol 8: what the phone found in a received text it encrypted, in place of the text. */
export interface ReceivedKeyword {
  action: 'add' | 'remove';
  keyword: string;
}

/** An SMS the phone received (protocol 3), kept in the inbox until `received_ack`. */
export interface ReceivedSms {
  /** A random UUID, made once when the SMS arrived. */
  received_id: string;
  from: string;
  text: string;
  /** The SIM slot (1 for the first) when the phone knows it. */
  sim?: number;
  /** Protocol 8: with an encrypted text, the opt-out or start keyword matched on the phone. */
  keyword?: ReceivedKeyword;
  /** RFC 3339, UTC. */
  received_at: string;
}

export interface ReceivedAckFrame {
  type: 'received_ack';
  received_id: string;
}

/** The hub did not store this received SMS (past a budget): send it again after `after_ms` (protocol 5). */
export interface ReceivedRetryFrame {
  type: 'received_retry';
  received_id: string;
  after_ms: number;
}

/** The hub asks a simulator to receive an SMS as if from the network (protocol 3). */
export interface SimulateReceivedFrame {
  type: 'simulate_received';
  from: string;
  text: string;
  sim?: number;
}

/** The hub asks for the agent's recent log (protocol 6). */
export interface LogRequestFrame {
  type: 'log_request';
}

/** The settings the server owns, pushed at connect and when they change (protocol 6). */
export interface SettingsFrame {
  type: 'settings';
  version: string;
  limits?: Record<string, unknown>;
  sim_rule?: Record<string, unknown>;
}

export type HubFrame =
  | HelloFrame
  | SmsFrame
  | ReportAckFrame
  | ReconnectFrame
  | ReceivedAckFrame
  | ReceivedRetryFrame
  | SimulateReceivedFrame
  | LogRequestFrame
  | SettingsFrame;

export type AgentFrame =
  | { type: 'ack'; message_id: string; traceparent?: string }
  | ({ type: 'report' } & Report)
  | { type: 'agent_hello'; protocol: number; driver: string; sims: SimInfo[] }
  | ({ type: 'received' } & ReceivedSms)
  | DigestFrame
  | ({ type: 'telemetry' } & Telemetry)
  | { type: 'log'; lines: string[] }
  | { type: 'settings_applied'; version: string; applied: string[] };

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A well-formed W3C traceparent, or nothing: the agent only echoes it. */
export const traceparentOf = (value: unknown): { traceparent?: string } =>
  typeof value === 'string' && TRACEPARENT.test(value) ? { traceparent: value } : {};

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A valid RFC 3339 time, normalised to UTC, or nothing. Like a malformed traceparent, a malformed
 * expiry is dropped rather than the SMS refused: the hub never hands out an expired message, and
 * refusing the frame would only have it offered again until its lease runs out, again and again.
 */
export const expiresAtOf = (value: unknown): { expires_at?: string } => {
  if (typeof value !== 'string' || !RFC3339.test(value)) return {};
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? {} : { expires_at: new Date(ms).toISOString() };
};

/** True when an SMS with this expiry must not begin to send at `now`. */
export function isExpired(expiresAt: string | undefined, now: Date): boolean {
  return expiresAt !== undefined && Date.parse(expiresAt) <= now.getTime();
}

const REPORT_STATUSES: readonly string[] = ['sent', 'delivered', 'failed'];

// Ids become file names in the outbox; the limit keeps them within every file system's name length.
const MAX_MESSAGE_ID_LENGTH = 200;

export type ParsedFrame = { kind: 'frame'; frame: HubFrame } | { kind: 'unknown'; type: string } | { kind: 'invalid'; reason: string };

/**
 * Checks a text frame from the hub. Unknown types are reported as such so the caller can ignore
 * them (forward compatibility); known types with missing or mistyped fields are invalid.
 */
export function parseHubFrame(data: string): ParsedFrame {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  if (!isRecord(value) || typeof value.type !== 'string') {
    return { kind: 'invalid', reason: 'not an object with a string type' };
  }
  const frame = value;
  const type = value.type;
  switch (type) {
    case 'hello':
      if (typeof frame.protocol !== 'number' || typeof frame.device_id !== 'string') {
        return { kind: 'invalid', reason: 'hello without protocol or device_id' };
      }
      return {
        kind: 'frame',
        frame: {
          type: 'hello',
          protocol: frame.protocol,
          device_id: frame.device_id,
          ...(isPositiveNumber(frame.ping_interval_ms) ? { ping_interval_ms: frame.ping_interval_ms } : {}),
        },
      };
    case 'sms':
      if (!isMessageId(frame.message_id) || typeof frame.to !== 'string' || typeof frame.text !== 'string') {
        return { kind: 'invalid', reason: 'sms without a valid message_id, to or text' };
      }
      return {
        kind: 'frame',
        frame: {
          type: 'sms',
          message_id: frame.message_id,
          to: frame.to,
          text: frame.text,
          priority: frame.priority,
          ...(typeof frame.attempt === 'number' ? { attempt: frame.attempt } : {}),
          ...traceparentOf(frame.traceparent),
          ...expiresAtOf(frame.expires_at),
          ...simOf(frame.sim),
        },
      };
    case 'report_ack':
      if (!isMessageId(frame.message_id) || typeof frame.status !== 'string' || !REPORT_STATUSES.includes(frame.status)) {
        return { kind: 'invalid', reason: 'report_ack without a valid message_id or status' };
      }
      return {
        kind: 'frame',
        frame: { type: 'report_ack', message_id: frame.message_id, status: frame.status as ReportStatus },
      };
    case 'reconnect':
      if (typeof frame.after_ms !== 'number' || !Number.isFinite(frame.after_ms) || frame.after_ms < 0) {
        return { kind: 'invalid', reason: 'reconnect without a valid after_ms' };
      }
      return { kind: 'frame', frame: { type: 'reconnect', after_ms: frame.after_ms } };
    case 'received_ack':
      if (!isMessageId(frame.received_id)) return { kind: 'invalid', reason: 'received_ack without a valid received_id' };
      return { kind: 'frame', frame: { type: 'received_ack', received_id: frame.received_id } };
    case 'received_retry':
      if (!isMessageId(frame.received_id) || typeof frame.after_ms !== 'number' || !Number.isFinite(frame.after_ms) || frame.after_ms < 0) {
        return { kind: 'invalid', reason: 'received_retry without a valid received_id or after_ms' };
      }
      return { kind: 'frame', frame: { type: 'received_retry', received_id: frame.received_id, after_ms: frame.after_ms } };
    case 'simulate_received':
      if (typeof frame.from !== 'string' || frame.from.length === 0 || typeof frame.text !== 'string') {
        return { kind: 'invalid', reason: 'simulate_received without from or text' };
      }
      return {
        kind: 'frame',
        frame: { type: 'simulate_received', from: frame.from, text: frame.text, ...simOf(frame.sim) },
      };
    case 'log_request':
      return { kind: 'frame', frame: { type: 'log_request' } };
    case 'settings':
      if (typeof frame.version !== 'string' || frame.version.length === 0 || frame.version.length > 64) {
        return { kind: 'invalid', reason: 'settings without a valid version' };
      }
      return {
        kind: 'frame',
        frame: {
          type: 'settings',
          version: frame.version,
          ...(isRecord(frame.limits) ? { limits: frame.limits } : {}),
          ...(isRecord(frame.sim_rule) ? { sim_rule: frame.sim_rule } : {}),
        },
      };
    default:
      return { kind: 'unknown', type };
  }
}

/** A SIM slot 1..8 (the hub's bounds), or nothing: an unknown slot is left out, not refused. */
export const simOf = (value: unknown): { sim?: number } =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 8 ? { sim: value } : {};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isMessageId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_MESSAGE_ID_LENGTH;
}

function isPositiveNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
