import { isEnvelope } from '@smsgw/e2e-envelope';
import {
  countryOf,
  decodeJsonPayload,
  e164InCountry,
  historyRange,
  storableText,
  type AgentReceived,
  type PublicEvent,
} from '@smsgw/platform';
import { containsPattern, pageOf, searchTerm, type Page } from './history';

/** The id prefix of received records: `rcv_` then a ULID, as message ids (`msg_`). */
export const RECEIVED_PREFIX = 'rcv_';

/** The filters of an inbox page; the dates bound received_at, as the history's bound created_at. */
export interface ReceivedFilter {
  from?: string;
  deviceId?: string;
  since?: Date;
  until?: Date;
  /** LIKE pattern matching the text anywhere, the user's wildcards escaped. */
  textPattern?: string;
}

/** An inbox request as the gateway and the dashboard send it ('' or 0 when a field is absent). */
export interface ReceivedRequest {
  page: number;
  limit: number;
  from: string;
  deviceId: string;
  fromDate: string;
  toDate: string;
  search: string;
}

/**
 * The inbox's rules, the history's (same errors): the page and limit, the search, then the
 * dates, which bound received_at as the history's bound created_at. `from` is matched as given:
 * the edges put a number in its E.164 form.
 */
export function receivedRequest(req: ReceivedRequest): { page: Page; filter: ReceivedFilter } {
  const page = pageOf(req.page, req.limit);
  const search = searchTerm(req.search);
  const range = historyRange(req.fromDate, req.toDate);
  const filter: ReceivedFilter = {
    ...(req.from ? { from: req.from } : {}),
    ...(req.deviceId ? { deviceId: req.deviceId } : {}),
    ...(range.from ? { since: range.from } : {}),
    ...(range.until ? { until: range.until } : {}),
    ...(search ? { textPattern: containsPattern(search) } : {}),
  };
  return { page, filter };
}

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * An AgentReceived as the hub publishes it, or undefined when it cannot be
 * stored (a missing id, device, client, sender, a bad mode, SIM or date).
 * The hub has checked the phone's frame already; lengths are not checked
 * again here, so that no SMS the hub accepted is lost. Characters Postgres
 * cannot store become U+FFFD rather than losing the SMS.
 */
export function parseAgentReceived(bytes: Uint8Array): AgentReceived | undefined {
  const r = decodeJsonPayload<AgentReceived>(bytes);
  if (!r || !nonEmpty(r.received_id) || !nonEmpty(r.device_id) || !nonEmpty(r.client_id) || !nonEmpty(r.from)) return undefined;
  if ((r.mode !== 'live' && r.mode !== 'test') || typeof r.text !== 'string') return undefined;
  if (r.sim !== undefined && r.sim !== null && !(Number.isInteger(r.sim) && r.sim >= 1 && r.sim <= 32_767)) return undefined;
  if (typeof r.received_at !== 'string' || Number.isNaN(Date.parse(r.received_at))) return undefined;
  return {
    received_id: storableText(r.received_id),
    device_id: storableText(r.device_id),
    client_id: storableText(r.client_id),
    mode: r.mode,
    from: storableText(r.from),
    text: storableText(r.text),
    ...(typeof r.sim === 'number' ? { sim: r.sim } : {}),
    ...(typeof r.sim_number === 'string' && r.sim_number.length <= 64 ? { sim_number: storableText(r.sim_number) } : {}),
    received_at: r.received_at,
    ...(phoneKeyword(r.keyword) ? { keyword: { action: r.keyword!.action, keyword: storableText(r.keyword!.keyword.slice(0, 32)) } } : {}),
  };
}

/** Protocol 8: a keyword the phone matched on an encrypted text, when well formed. */
function phoneKeyword(k: AgentReceived['keyword'] | undefined): boolean {
  return !!k && (k.action === 'add' || k.action === 'remove') && typeof k.keyword === 'string' && k.keyword.length > 0;
}

/** The sender of a received SMS: its E.164 number when it is one, and whether it is. */
export interface Sender {
  /** E.164 when the sender is a number; else as the network gave it (an alphanumeric name, a short code). */
  from: string;
  /** Whether `from` is an E.164 number: only such a sender joins or leaves a suppression list. */
  isNumber: boolean;
}

/**
 * The sender as the inbox and the suppression list keep it: a number in E.164, read in the
 * phone's country (that of `simNumber`, the SIM's own number) when the network gave it the
 * national way (`0612345678` on a French phone is `+33612345678`), so that a STOP stops the
 * sends to that number; a name or short code as given. A national number on a phone whose country
 * is unknown stays as given and is not taken for a number.
 */
export function senderOf(from: string, simNumber: string | undefined): Sender {
  const number = e164InCountry(from, simNumber ? countryOf(simNumber) : undefined);
  return number ? { from: number, isNumber: true } : { from, isNumber: false };
}

/** The fields of a stored record that its event carries. */
export interface ReceivedRecord {
  id: string;
  client_id: string;
  mode: 'live' | 'test';
  device_id: string;
  sim: number | null;
  from_number: string;
  body: string;
  received_at: Date;
}

/**
 * The `sms.received` event of a record. Its id is the record's id under the
 * event prefix, so every copy of one SMS publishes the same event id and the
 * events stream (de-duplicating by Nats-Msg-Id) and receivers keep one.
 * A reply (`replyTo`) names the message it answers (`in_reply_to`, else
 * null) and goes to that message's webhook_url too (`routing.webhook_url`).
 */
export function receivedEvent(row: ReceivedRecord, replyTo?: ReplyTarget): PublicEvent {
  const at = row.received_at.toISOString();
  return {
    event: 'sms.received',
    event_id: `evt_${row.id.slice(RECEIVED_PREFIX.length)}`,
    timestamp: at,
    data: {
      id: row.id,
      from: row.from_number,
      device_id: row.device_id,
      sim: row.sim,
      message: row.body,
      // Protocol 8: the phone sealed the text; only a holder of the passphrase reads it.
      ...(isEnvelope(row.body) ? { encrypted: true } : {}),
      received_at: at,
      in_reply_to: replyTo?.message_id ?? null,
    },
    routing: { client_id: row.client_id, mode: row.mode, ...(replyTo ? { webhook_url: replyTo.webhook_url } : {}) },
  };
}

/** How long after its queueing a message with `replies` takes the replies of its number. */
export const REPLY_WINDOW_HOURS = 24;

/** The message a received SMS answers: the newest one to its sender that asked for replies, within the window. */
export interface ReplyTarget {
  message_id: string;
  webhook_url: string;
}
