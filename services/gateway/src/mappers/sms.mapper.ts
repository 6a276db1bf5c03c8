import { isEnvelope } from '@smsgw/e2e-envelope';
import { modeToProto } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { AuthContext } from '../http/context';
import type { BatchRequest, SendRequest } from '../domain/send-request';

/**
 * The messaging endpoints' translations, in one place: a checked HTTP body to
 * the message service's request, and its answers to the API's snake_case
 * bodies (the OpenAPI document's schemas).
 */

/** The request's Idempotency-Key and its hash, as the message service takes them ('' when absent). */
export interface IdempotencyFields {
  key: string;
  requestHash: string;
}

const idempotencyOf = (idempotency: IdempotencyFields | undefined) => ({
  idempotencyKey: idempotency?.key ?? '',
  requestHash: idempotency?.requestHash ?? '',
});

const metadataJson = (metadata: Record<string, unknown> | undefined) => (metadata ? JSON.stringify(metadata) : '');

/** The ttl a message gets: its own, else the client's default (0: no limit). */
export const resolveTtl = (auth: AuthContext, given: number | undefined): number => given ?? auth.defaultTtlSeconds;

/**
 * Where the message goes. `pinned`: the client named the device and did not
 * ask for `"failover": true`, so the message never moves to another phone.
 */
export interface Routing {
  deviceId: string;
  pinned: boolean;
}

export function toSendRequest(
  auth: AuthContext,
  routing: Routing,
  request: SendRequest,
  idempotency: IdempotencyFields | undefined,
): message.SendRequest {
  const { deviceId, pinned } = routing;
  return {
    clientId: auth.clientId,
    mode: modeToProto(auth.mode),
    deviceId,
    message: { to: request.to, text: request.message, metadataJson: metadataJson(request.metadata) },
    priority: request.priority,
    webhookUrl: request.webhookUrl ?? '',
    scheduledAt: request.scheduledAt?.toISOString() ?? '',
    ttlSeconds: resolveTtl(auth, request.ttlSeconds),
    pinned,
    sim: request.sim ?? 0,
    replies: request.replies,
    ...idempotencyOf(idempotency),
  };
}

export function toSendBatchRequest(
  auth: AuthContext,
  deviceIds: string[],
  pinned: boolean,
  request: BatchRequest,
  idempotency: IdempotencyFields | undefined,
): message.SendBatchRequest {
  return {
    clientId: auth.clientId,
    mode: modeToProto(auth.mode),
    deviceIds,
    messages: request.items.map((i) => ({ to: i.to, text: i.message, metadataJson: metadataJson(i.metadata) })),
    priority: request.priority,
    webhookUrl: request.webhookUrl ?? '',
    ttlSeconds: request.items.map((i) => resolveTtl(auth, i.ttlSeconds)),
    pinned,
    sims: request.items.map((i) => i.sim ?? 0),
    replies: request.replies,
    ...idempotencyOf(idempotency),
  };
}

/**
 * When a just-stored message stops waiting for a phone: its scheduled time
 * (or its queueing) plus its ttl, as the message service computes it; null
 * without a ttl. (The send receipt does not carry it.)
 */
export function expiresAtOf(receipt: { queuedAt: string; scheduledAt: string }, ttlSeconds: number): string | null {
  const from = Date.parse(receipt.scheduledAt || receipt.queuedAt);
  return ttlSeconds > 0 && !Number.isNaN(from) ? new Date(from + ttlSeconds * 1000).toISOString() : null;
}

/** The API's attempts: the earlier tries, oldest first, then the current one. */
function attemptsOf(m: message.Message__Output): Record<string, unknown>[] {
  return m.attempts.map((a) => ({
    device_id: a.deviceId,
    status: a.status,
    error: a.errorCode ? { code: a.errorCode, message: a.errorMessage } : null,
    at: a.at,
    sim: simOf(a.sim),
    ...(a.reconciled ? { reconciled: a.reconciled } : {}),
  }));
}

/** A SIM slot as the API shows it: null when unknown (0). */
const simOf = (sim: number): number | null => sim || null;

const PRIORITY_LABELS: Record<number, string> = { 1: 'very_high', 2: 'high', 3: 'normal', 4: 'low', 5: 'very_low' };

/** The send answer: `device_id` is the one that took it, or the chosen one; `sim` the one asked for. */
export function sendBody(
  to: string,
  chosenDeviceId: string,
  receipt: message.SendReceipt__Output,
  expiresAt: string | null,
  sim: number | undefined,
): Record<string, unknown> {
  return {
    success: true,
    message_id: receipt.messageId,
    status: receipt.status,
    to,
    device_id: receipt.deviceId || chosenDeviceId,
    parts: receipt.parts,
    encoding: receipt.encoding,
    queued_at: receipt.queuedAt,
    ...(receipt.scheduledAt ? { scheduled_at: receipt.scheduledAt } : {}),
    estimated_delivery: receipt.estimatedDelivery,
    expires_at: expiresAt,
    sim: sim ?? null,
  };
}

export function batchBody(batch: message.SendBatchResponse__Output): Record<string, unknown> {
  return {
    success: true,
    batch_id: batch.batchId,
    total_recipients: batch.messages.length,
    messages: batch.messages.map((m) => ({
      message_id: m.messageId,
      to: m.to,
      status: m.status,
      device_id: m.deviceId,
      parts: m.parts,
      encoding: m.encoding,
      expires_at: m.expiresAt || null,
      sim: simOf(m.sim),
    })),
    queued_at: batch.queuedAt,
  };
}

/** The status response: timestamps appear once reached. */
export function statusBody(m: message.Message__Output): Record<string, unknown> {
  const body: Record<string, unknown> = {
    success: true,
    message_id: m.messageId,
    status: m.status,
    to: m.to,
    message: m.text,
    priority: PRIORITY_LABELS[m.priority] ?? 'normal',
    parts: m.parts,
    encoding: m.encoding,
    created_at: m.createdAt,
    queued_at: m.queuedAt,
    device_id: m.deviceId,
    expires_at: m.expiresAt || null,
    sim: simOf(m.sim),
    replies: m.replies,
    encrypted: isEnvelope(m.text),
  };
  if (m.scheduledAt) body.scheduled_at = m.scheduledAt;
  if (m.sentAt) body.sent_at = m.sentAt;
  if (m.deliveredAt) body.delivered_at = m.deliveredAt;
  if (m.failedAt) body.failed_at = m.failedAt;
  if (m.cancelledAt) body.cancelled_at = m.cancelledAt;
  if (m.errorCode) body.error = { code: m.errorCode, message: m.errorMessage };
  if (m.status === 'sent') body.no_report = m.noReport;
  body.metadata = m.metadataJson ? (JSON.parse(m.metadataJson) as unknown) : {};
  body.attempts = attemptsOf(m);
  return body;
}

export function cancelBody(m: message.Message__Output): Record<string, unknown> {
  return { success: true, message: 'Message annulé.', message_id: m.messageId, status: m.status, cancelled_at: m.cancelledAt };
}

/** A history entry: the specification's fields, unreached timestamps as null. */
function historyItem(m: message.Message__Output): Record<string, unknown> {
  return {
    message_id: m.messageId,
    status: m.status,
    to: m.to,
    message: m.text,
    priority: PRIORITY_LABELS[m.priority] ?? 'normal',
    device_id: m.deviceId,
    batch_id: m.batchId || null,
    created_at: m.createdAt,
    sent_at: m.sentAt || null,
    delivered_at: m.deliveredAt || null,
    failed_at: m.failedAt || null,
    scheduled_at: m.scheduledAt || null,
    expires_at: m.expiresAt || null,
    sim: simOf(m.sim),
    replies: m.replies,
    ...(m.status === 'sent' ? { no_report: m.noReport } : {}),
    encrypted: isEnvelope(m.text),
    attempts: attemptsOf(m),
  };
}

export function historyBody(list: message.ListMessagesResponse__Output): Record<string, unknown> {
  return {
    success: true,
    data: list.messages.map(historyItem),
    pagination: { current_page: list.page, per_page: list.perPage, total_pages: list.totalPages, total_items: list.totalItems },
  };
}

export function statsBody(stats: message.GetStatsResponse__Output): Record<string, unknown> {
  return {
    success: true,
    period: { from: stats.from, to: stats.to },
    stats: {
      total_sent: stats.totalSent,
      delivered: stats.delivered,
      failed: stats.failed,
      pending: stats.pending,
      delivery_rate: stats.deliveryRate,
      // SMS the client's phones received over the period (issue 24): not part of the sending figures.
      received: stats.received,
      by_day: stats.byDay.map((d) => ({ date: d.date, sent: d.sent, delivered: d.delivered, failed: d.failed, received: d.received })),
    },
  };
}
