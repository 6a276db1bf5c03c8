import { modeFromProto, modeToProto } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { CampaignUploadRow, UploadKey } from '../data/campaign-upload.repository';
import type { CampaignKey, CampaignWithCounts } from '../data/campaign.repository';
import type { ClaimedFields, MessageRow } from '../domain/message-row';
import type { OptOutRow } from '../data/opt-out.repository';
import type { OptOutSettings } from '../domain/opt-out';
import type { ReceivedRow } from '../data/received.repository';
import { attemptsOf } from '../domain/fleet';
import { noReport } from '../domain/report-deadline';
import type { SendOutcome } from '../use-cases/send-messages.use-case';

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : '');

/**
 * A message of a batch as SendBatch and AddCampaignMessages answer it: what the API's batch answer
 * shows (id, number, status, device, parts, encoding, expiry, SIM) and the fields a caller checks
 * before it reads the rest with GetMessage. Not the text, metadata or timestamps of later states:
 * a batch of 100 long texts would travel back to the gateway only to be dropped there.
 */
export function toBatchItemProto(row: MessageRow): message.Message {
  return {
    messageId: row.message_id,
    clientId: row.client_id,
    deviceId: row.device_id,
    batchId: row.batch_id ?? '',
    mode: modeToProto(row.mode),
    status: row.status,
    to: row.to_number,
    parts: row.parts,
    encoding: row.encoding,
    queuedAt: iso(row.queued_at),
    scheduledAt: iso(row.scheduled_at),
    errorCode: row.error_code ?? '',
    expiresAt: iso(row.expires_at),
    pinned: row.pinned,
    sim: row.sim,
    requestedSim: row.requested_sim,
    replies: row.replies,
    campaignId: row.campaign_id ?? '',
  };
}

/** A message with every field it has. */
export function toProto(row: MessageRow): message.Message {
  return {
    ...toBatchItemProto(row),
    text: row.body,
    priority: row.priority,
    metadataJson: row.metadata ? JSON.stringify(row.metadata) : '',
    webhookUrl: row.webhook_url ?? '',
    createdAt: iso(row.created_at),
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
    failedAt: iso(row.failed_at),
    cancelledAt: iso(row.cancelled_at),
    errorMessage: row.error_message ?? '',
    attempts: attemptsOf(row),
    noReport: noReport(row, new Date()),
  };
}

/** A claimed message as the hub hands it to the phone (`text`: what the phone sends, an OTP's in full). */
export function claimedToProto(row: ClaimedFields, text: string): message.Message {
  return {
    messageId: row.message_id,
    clientId: row.client_id,
    deviceId: row.device_id,
    mode: modeToProto(row.mode),
    status: row.status,
    to: row.to_number,
    text,
    priority: row.priority,
    expiresAt: iso(row.expires_at),
    requestedSim: row.requested_sim,
  };
}

export function toCampaignProto(c: CampaignWithCounts): message.Campaign {
  return {
    campaignId: c.campaign_id,
    clientId: c.client_id,
    mode: modeToProto(c.mode),
    name: c.name,
    status: c.status,
    createdAt: iso(c.created_at),
    updatedAt: iso(c.updated_at),
    total: c.total,
    queued: c.queued,
    held: c.held,
    sent: c.sent,
    delivered: c.delivered,
    failed: c.failed,
    cancelled: c.cancelled,
  };
}

/** A campaign file; its content only when it was read. */
export function toUploadProto(u: CampaignUploadRow): message.CampaignUpload {
  return {
    uploadId: u.upload_id,
    name: u.name,
    fileName: u.file_name,
    headers: u.headers,
    rowCount: u.row_count,
    byteSize: u.byte_size,
    createdAt: iso(u.created_at),
    expiresAt: iso(u.expires_at),
    content: u.content ?? Buffer.alloc(0),
  };
}

/** The campaign file a request names, within its client and mode. */
export function uploadKey(req: { clientId: string; mode: Parameters<typeof modeFromProto>[0]; uploadId: string }): UploadKey {
  return { uploadId: req.uploadId, clientId: req.clientId, mode: modeFromProto(req.mode) };
}

/** The campaign a request names, within its client and mode. */
export function campaignKey(req: { clientId: string; mode: Parameters<typeof modeFromProto>[0]; campaignId: string }): CampaignKey {
  return { campaignId: req.campaignId, clientId: req.clientId, mode: modeFromProto(req.mode) };
}

/** A received SMS; `sim` 0 when the phone did not say. */
export function toReceivedProto(row: ReceivedRow): message.ReceivedMessage {
  return {
    id: row.id,
    clientId: row.client_id,
    mode: modeToProto(row.mode),
    deviceId: row.device_id,
    sim: row.sim ?? 0,
    from: row.from_number,
    text: row.body,
    receivedAt: iso(row.received_at),
    createdAt: iso(row.created_at),
  };
}

/** One send of a SendMany: its receipt, or the error that refused it alone. */
export function toSendManyResult({ row, estimatedDelivery, replayed, error }: SendOutcome): message.SendManyResult {
  return error
    ? { errorCode: error.code, errorMessage: error.message }
    : {
        receipt: {
          messageId: row!.message_id,
          status: row!.status,
          parts: row!.parts,
          encoding: row!.encoding,
          queuedAt: iso(row!.queued_at),
          scheduledAt: iso(row!.scheduled_at),
          estimatedDelivery,
          replayed: replayed === true,
          deviceId: row!.device_id,
        },
      };
}

/** The request's own fields of a send, its mode read. */
export function sendInput(req: message.SendRequest__Output) {
  return { ...req, mode: modeFromProto(req.mode) };
}

export function toOptOutProto(row: OptOutRow): message.OptOut {
  return { phoneNumber: row.phone_number, source: row.source, keyword: row.keyword ?? '', createdAt: iso(row.created_at) };
}

export function toSettingsProto(clientId: string, s: OptOutSettings): message.OptOutSettings {
  return { clientId, optOutKeywords: s.optOutKeywords, startKeywords: s.startKeywords, otpIgnoresOptOut: s.otpIgnoresOptOut };
}
