import {
  AppError,
  isStorableJson,
  isStorableText,
  MAX_SMS_CHARACTERS,
  normalizePhoneNumber,
  parseWebhookUrl,
  smsCharacters,
  type ErrorCode,
  type ErrorDetail,
} from '@smsgw/platform';
import { checkEncrypted, checkEnvelopeField } from './encrypted-message';

export const MAX_METADATA_BYTES = 1024;
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600_000;

export interface SendRequest {
  to: string;
  message: string;
  priority: number;
  webhookUrl?: string;
  metadata?: Record<string, unknown>;
  scheduledAt?: Date;
  /** Seconds the message may wait for a phone; undefined: the client's default. */
  ttlSeconds?: number;
  /** `"failover": true`: a message sent through X-Device-ID may still move to another phone. */
  failover: boolean;
  /** The SIM slot to send through (1 to 8); undefined: the phone's choice. */
  sim?: number;
  /** SMS received from `to` go to `webhookUrl` as sms.received with `in_reply_to` (needs webhookUrl). */
  replies: boolean;
  /** `message` is an end-to-end envelope, opened only by the phone (docs/api/encryption.md). */
  encrypted: boolean;
}

/** Collects one detail per failing field; throws the single code, or VALIDATION_ERROR for several. */
export class FieldErrors {
  readonly details: ErrorDetail[] = [];

  add(field: string, code: ErrorCode, message?: string): void {
    this.details.push({ field, code, message: message ?? new AppError(code).message });
  }

  throwIfAny(): void {
    const [only] = this.details;
    if (this.details.length === 1 && only) {
      // A field with no code of its own (VALIDATION_ERROR): its sentence is the error's, not "several fields".
      const message = only.code === 'VALIDATION_ERROR' ? only.message : undefined;
      throw new AppError(only.code as ErrorCode, { message, details: this.details });
    }
    if (this.details.length > 1) throw new AppError('VALIDATION_ERROR', { details: this.details });
  }
}

/** A text's shape, each failing field named; the limit is the message service's send rule, counted as the platform counts. */
export function checkMessage(value: unknown, field: string, errors: FieldErrors, encrypted = false): string {
  if (typeof value !== 'string' || value.trim() === '') {
    errors.add(field, 'MESSAGE_REQUIRED');
    return '';
  }
  if (!isStorableText(value)) errors.add(field, 'INVALID_CHARACTER');
  // An envelope's limit is its own; the plain text's is checked by the phone.
  else if (encrypted || value.startsWith('$smsgw-e2e$')) checkEnvelopeField(value, field, encrypted, errors);
  else if (smsCharacters(value) > MAX_SMS_CHARACTERS) errors.add(field, 'MESSAGE_TOO_LONG');
  return value;
}

export function checkPriority(value: unknown, errors: FieldErrors): number {
  if (value === undefined || value === null) return 3;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 5) {
    errors.add('priority', 'INVALID_PRIORITY');
    return 3;
  }
  return value;
}

/** Whether a message's `webhook_url` may name a private, loopback or link-local address (development only). */
export interface WebhookUrlPolicy {
  allowPrivate: boolean;
}

const PUBLIC_ONLY: WebhookUrlPolicy = Object.freeze({ allowPrivate: false });

/**
 * HTTPS, no credentials, and, when the host is an IP address, a public one.
 * A host name is resolved and checked by the webhook service at each delivery.
 */
export function checkWebhookUrl(value: unknown, errors: FieldErrors, policy: WebhookUrlPolicy = PUBLIC_ONLY): string | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = typeof value === 'string' ? parseWebhookUrl(value, policy) : undefined;
  if (!parsed?.ok) {
    errors.add('webhook_url', 'INVALID_WEBHOOK_URL');
    return undefined;
  }
  return parsed.target.url.toString();
}

export function checkMetadata(value: unknown, field: string, errors: FieldErrors): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value) || Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_METADATA_BYTES) {
    errors.add(field, 'METADATA_TOO_LARGE');
    return undefined;
  }
  if (!isStorableJson(value)) {
    errors.add(field, 'INVALID_CHARACTER');
    return undefined;
  }
  return value as Record<string, unknown>;
}

export const TTL_SECONDS = { min: 60, max: 604_800 };

/** `ttl`: whole seconds from 60 (a minute) to 604800 (a week); absent or null: the client's default. */
export function checkTtl(value: unknown, field: string, errors: FieldErrors): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < TTL_SECONDS.min || value > TTL_SECONDS.max) {
    errors.add(
      field,
      'VALIDATION_ERROR',
      `Le champ ${field} doit être un nombre entier de secondes compris entre ${TTL_SECONDS.min} et ${TTL_SECONDS.max}.`,
    );
    return undefined;
  }
  return value;
}

/** `failover`: a boolean; absent or null: false. */
export function checkFailover(value: unknown, errors: FieldErrors): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    errors.add('failover', 'VALIDATION_ERROR', 'Le champ failover doit être un booléen (true ou false).');
    return false;
  }
  return value;
}

export const MAX_SIM = 8;

/** `sim`: a SIM slot, a whole number from 1 to 8; absent or null: the phone's choice. */
export function checkSim(value: unknown, field: string, errors: FieldErrors): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_SIM) {
    errors.add(field, 'VALIDATION_ERROR', `Le champ ${field} doit être un numéro de SIM entier compris entre 1 et ${MAX_SIM}.`);
    return undefined;
  }
  return value;
}

/**
 * `replies`: a boolean; absent or null: false. Replies go to the message's own
 * webhook_url, so `true` needs one (an invalid one is reported on its own field).
 */
export function checkReplies(body: Record<string, unknown>, errors: FieldErrors): boolean {
  const value = body.replies;
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') {
    errors.add('replies', 'VALIDATION_ERROR', 'Le champ replies doit être un booléen (true ou false).');
    return false;
  }
  if (value && (body.webhook_url === undefined || body.webhook_url === null)) {
    errors.add('replies', 'VALIDATION_ERROR', 'Le champ replies demande un webhook_url : les réponses y sont envoyées.');
    return false;
  }
  return value;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Date.parse rolls 2030-02-30 over to 2 March; a real calendar day is required. */
function isCalendarDate(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  return m >= 1 && m <= 12 && d >= 1 && new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
}

export function checkScheduledAt(value: unknown, errors: FieldErrors, now = Date.now()): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const time = typeof value === 'string' && ISO_8601.test(value) && isCalendarDate(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time) || time <= now || time > now + MAX_SCHEDULE_AHEAD_MS) {
    errors.add('scheduled_at', 'INVALID_SCHEDULED_AT');
    return undefined;
  }
  return new Date(time);
}

/** Validates the body of POST /v1/sms/send, reporting every failing field at once. */
export function parseSendRequest(body: Record<string, unknown>, now = Date.now(), policy: WebhookUrlPolicy = PUBLIC_ONLY): SendRequest {
  const errors = new FieldErrors();
  const to = normalizePhoneNumber(body.to);
  if (!to) errors.add('to', 'INVALID_PHONE_NUMBER');
  const encrypted = checkEncrypted(body.encrypted, 'encrypted', errors);
  const message = checkMessage(body.message, 'message', errors, encrypted);
  const priority = checkPriority(body.priority, errors);
  const webhookUrl = checkWebhookUrl(body.webhook_url, errors, policy);
  const metadata = checkMetadata(body.metadata, 'metadata', errors);
  const scheduledAt = checkScheduledAt(body.scheduled_at, errors, now);
  const ttlSeconds = checkTtl(body.ttl, 'ttl', errors);
  const failover = checkFailover(body.failover, errors);
  const sim = checkSim(body.sim, 'sim', errors);
  const replies = checkReplies(body, errors);
  errors.throwIfAny();
  return { to: to!, message, priority, webhookUrl, metadata, scheduledAt, ttlSeconds, failover, sim, replies, encrypted };
}

export const MAX_BATCH = 100;

export interface BatchItem {
  to: string;
  message: string;
  metadata?: Record<string, unknown>;
  /** The message's own ttl, else the request's; undefined: the client's default. */
  ttlSeconds?: number;
  /** The message's own SIM slot, else the request's; undefined: the phone's choice. */
  sim?: number;
}

export interface BatchRequest {
  items: BatchItem[];
  priority: number;
  webhookUrl?: string;
  /** As SendRequest.failover, for every message of the batch. */
  failover: boolean;
  /** As SendRequest.replies, for every message of the batch. */
  replies: boolean;
}

/**
 * POST /v1/sms/send-bulk: one text to up to 100 recipients. All or nothing:
 * one bad recipient rejects the request, named by its index.
 */
export function parseBulkRequest(body: Record<string, unknown>, policy: WebhookUrlPolicy = PUBLIC_ONLY): BatchRequest {
  const errors = new FieldErrors();
  const recipients = body.recipients;
  const numbers: string[] = [];
  if (!Array.isArray(recipients) || recipients.length === 0) {
    errors.add('recipients', 'INVALID_PHONE_NUMBER', 'Au moins un destinataire au format international est requis.');
  } else if (recipients.length > MAX_BATCH) {
    errors.add('recipients', 'TOO_MANY_RECIPIENTS');
  } else {
    recipients.forEach((r, i) => {
      const to = normalizePhoneNumber(r);
      if (to) numbers.push(to);
      else errors.add(`recipients[${i}]`, 'INVALID_PHONE_NUMBER');
    });
  }
  const message = checkMessage(body.message, 'message', errors, checkEncrypted(body.encrypted, 'encrypted', errors));
  const priority = checkPriority(body.priority, errors);
  const webhookUrl = checkWebhookUrl(body.webhook_url, errors, policy);
  const metadata = checkMetadata(body.metadata, 'metadata', errors);
  const ttlSeconds = checkTtl(body.ttl, 'ttl', errors);
  const failover = checkFailover(body.failover, errors);
  const sim = checkSim(body.sim, 'sim', errors);
  const replies = checkReplies(body, errors);
  errors.throwIfAny();
  return { items: numbers.map((to) => ({ to, message, metadata, ttlSeconds, sim })), priority, webhookUrl, failover, replies };
}

/**
 * POST /v1/sms/send-bulk-personalized: up to 100 messages, each with its own
 * text, metadata, ttl and sim (a message without one takes the request's
 * `ttl` or `sim`).
 */
export function parsePersonalizedRequest(body: Record<string, unknown>, policy: WebhookUrlPolicy = PUBLIC_ONLY): BatchRequest {
  const errors = new FieldErrors();
  const messages = body.messages;
  const items: BatchItem[] = [];
  const requestTtl = checkTtl(body.ttl, 'ttl', errors);
  const requestSim = checkSim(body.sim, 'sim', errors);
  const requestEncrypted = checkEncrypted(body.encrypted, 'encrypted', errors);
  if (!Array.isArray(messages) || messages.length === 0) {
    errors.add('messages', 'MESSAGE_REQUIRED', 'Au moins un message est requis.');
  } else if (messages.length > MAX_BATCH) {
    errors.add('messages', 'TOO_MANY_RECIPIENTS', 'Trop de messages : 100 au maximum par requête.');
  } else {
    messages.forEach((m: unknown, i) => {
      const entry = m && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
      const to = normalizePhoneNumber(entry.to);
      if (!to) errors.add(`messages[${i}].to`, 'INVALID_PHONE_NUMBER');
      const encrypted = checkEncrypted(entry.encrypted, `messages[${i}].encrypted`, errors, requestEncrypted);
      const message = checkMessage(entry.message, `messages[${i}].message`, errors, encrypted);
      const metadata = checkMetadata(entry.metadata, `messages[${i}].metadata`, errors);
      const ttlSeconds = checkTtl(entry.ttl, `messages[${i}].ttl`, errors) ?? requestTtl;
      const sim = checkSim(entry.sim, `messages[${i}].sim`, errors) ?? requestSim;
      if (to) items.push({ to, message, metadata, ttlSeconds, sim });
    });
  }
  const priority = checkPriority(body.priority, errors);
  const webhookUrl = checkWebhookUrl(body.webhook_url, errors, policy);
  const failover = checkFailover(body.failover, errors);
  const replies = checkReplies(body, errors);
  errors.throwIfAny();
  return { items, priority, webhookUrl, failover, replies };
}
