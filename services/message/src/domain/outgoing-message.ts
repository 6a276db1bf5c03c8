import { isEnvelope } from '@smsgw/e2e-envelope';
import { AppError, isStorableJson, isStorableText, measureSms, newId } from '@smsgw/platform';
import type { Idempotency, MessageRow, Mode, NewMessage } from './message-row';
import { checkSendRules } from './send-rules';

/** A send's own fields, as the gateway gives them. */
export interface SendFields {
  clientId: string;
  mode: Mode;
  priority: number;
  webhookUrl: string;
}

/** One message of a send: its number, text and metadata (JSON). */
export interface OutgoingFields {
  to: string;
  text: string;
  metadataJson: string;
}

/** The metadata of a message: a JSON object Postgres can store, or none. */
export function parseMetadata(json: string): Record<string, unknown> | null {
  if (!json) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('METADATA_TOO_LARGE', { details: [{ field: 'metadata', code: 'METADATA_TOO_LARGE' }] });
  }
  if (!isStorableJson(value)) throw new AppError('INVALID_CHARACTER', { details: [{ field: 'metadata', code: 'INVALID_CHARACTER' }] });
  return value as Record<string, unknown>;
}

/** A text field Postgres can store, or INVALID_CHARACTER naming the field. */
export function storable(text: string, field: string): string {
  if (!isStorableText(text)) throw new AppError('INVALID_CHARACTER', { details: [{ field, code: 'INVALID_CHARACTER' }] });
  return text;
}

/** A request's Idempotency-Key and request hash, or null without a key. */
export function idempotencyOf(req: { idempotencyKey: string; requestHash: string }): Idempotency | null {
  if (!req.idempotencyKey) return null;
  if (req.idempotencyKey.length > 255) throw new AppError('INVALID_IDEMPOTENCY_KEY');
  return { key: storable(req.idempotencyKey, 'idempotency_key'), requestHash: storable(req.requestHash, 'request_hash') };
}

const ENCRYPTED_SIZE = Object.freeze({ parts: 1, encoding: 'GSM-7' as const, characters: 0 });

/**
 * A message to queue on `deviceId`, its fields checked (the send rules too), its parts and encoding
 * measured. Every optional field of `NewMessage` is there too, at its default: the caller sets
 * those it has (`m.pinned = …`). A spread copy with more fields instead was a third of the message
 * service's CPU in a bulk send (docs/contributors/conventions.md, "Busy paths").
 */
export function outgoing(
  req: SendFields,
  deviceId: string,
  m: OutgoingFields,
  scheduledAt: Date | null,
  batchId: string | null,
): NewMessage {
  if (!deviceId) throw new AppError('INVALID_DEVICE_ID');
  if (!m.text) throw new AppError('MESSAGE_REQUIRED');
  // An encrypted text's parts and encoding are the phone's to know: one GSM-7 part stands in (docs/api/encryption.md).
  const text = storable(m.text, 'message');
  const size = isEnvelope(text) ? ENCRYPTED_SIZE : measureSms(text);
  checkSendRules(m);
  return {
    messageId: newId('msg'),
    clientId: storable(req.clientId, 'client_id'),
    mode: req.mode,
    deviceId: storable(deviceId, 'device_id'),
    batchId,
    to: storable(m.to, 'to'),
    text: m.text,
    priority: req.priority || 3,
    metadata: parseMetadata(m.metadataJson),
    webhookUrl: req.webhookUrl ? storable(req.webhookUrl, 'webhook_url') : null,
    parts: size.parts,
    encoding: size.encoding,
    scheduledAt,
    idempotency: null,
    traceparent: null,
    ttlSeconds: 0,
    pinned: false,
    optedOut: false,
    requestedSim: 0,
    replies: false,
    campaignId: null,
    fleet: false,
  };
}

/**
 * A stored message as its send answered it (`queued`), for a send made again
 * with its Idempotency-Key: the same answer, whatever became of it since
 * (its status tells that). One stored failed for an opted-out number was
 * answered so, and is again.
 */
export function asAnswered(row: MessageRow): MessageRow {
  return row.error_code === 'OPTED_OUT' ? row : { ...row, status: 'queued' };
}

/** When a message should be delivered, `ahead` messages of its device going first, each `averagePacingMs` apart. */
export function estimateDelivery(
  row: Pick<MessageRow, 'status' | 'due_at' | 'queued_at' | 'sent_at' | 'failed_at' | 'cancelled_at'>,
  ahead: number,
  averagePacingMs: number,
): string {
  if (row.status !== 'queued') return (row.sent_at ?? row.failed_at ?? row.cancelled_at ?? row.queued_at).toISOString();
  const start = Math.max(Date.now(), row.due_at.getTime());
  return new Date(start + ahead * averagePacingMs).toISOString();
}
