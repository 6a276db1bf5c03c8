import { modeFromProto, type Callers } from '@smsgw/platform';
import type { AsyncHandlers } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { releaseReason } from '../domain/fleet';
import {
  addCampaignMessages,
  cancelCampaign,
  createCampaign,
  getCampaign,
  listCampaigns,
  pauseCampaign,
  resumeCampaign,
} from '../use-cases/campaigns.use-case';
import { getCampaignUpload, listCampaignUploads, storeCampaignUpload, takeCampaignUpload } from '../use-cases/campaign-uploads.use-case';
import { cancelMessage } from '../use-cases/cancel-message.use-case';
import { acceptMany, acceptMessage, claimMany, claimNext } from '../use-cases/claim-message.use-case';
import type { MessageService } from '../use-cases/message-service';
import { deviceRepairs, getMessage, getStats, listMessages, queueDepths } from '../use-cases/read-messages.use-case';
import { addOptOut, getOptOutSettings, listOptOuts, removeOptOut, setOptOutSettings } from '../use-cases/opt-outs.use-case';
import { getReceived, listReceived } from '../use-cases/read-received.use-case';
import { releaseDevice, strandedDevices } from '../use-cases/release-device.use-case';
import { runRetention } from '../use-cases/run-retention.use-case';
import { sendBatch } from '../use-cases/send-batch.use-case';
import { sendMessages } from '../use-cases/send-messages.use-case';
import { sendOtpMessage } from '../use-cases/send-otp-message.use-case';
import {
  campaignKey,
  claimedToProto,
  iso,
  sendInput,
  toBatchItemProto,
  toCampaignProto,
  toOptOutProto,
  toProto,
  toReceivedProto,
  toSendManyResult,
  toSettingsProto,
  toUploadProto,
  uploadKey,
} from './message.mapper';

/**
 * Who may call each method, by the identity of its client certificate (docs/operators/security.md lists them all).
 * A new method must be listed here; startGrpcService refuses any other caller with PERMISSION_DENIED.
 */
export const messageCallers: Callers<message.MessageServiceHandlers> = {
  // The dashboard's inbox replies through a phone the user chose.
  Send: ['gateway', 'dashboard', 'smpp'],
  SendBatch: ['gateway'],
  SendMany: ['gateway'],
  GetMessage: ['gateway', 'dashboard', 'otp', 'device-hub', 'smpp'],
  CancelMessage: ['gateway', 'smpp'],
  // The phones' side: only the hub claims and accepts.
  ClaimNext: ['device-hub'],
  ClaimMany: ['device-hub'],
  AcceptMessage: ['device-hub'],
  AcceptMany: ['device-hub'],
  // The hub's failover: it alone knows which phones are offline or removed.
  ReleaseDevice: ['device-hub'],
  StrandedDevices: ['device-hub'],
  QueueDepths: ['gateway', 'dashboard', 'smpp'],
  ListMessages: ['gateway', 'dashboard'],
  GetStats: ['gateway', 'dashboard'],
  // The inbox: the public API and the dashboard read it; the consumer of `agent.received.*` writes it.
  ListReceived: ['gateway', 'dashboard'],
  GetReceived: ['gateway', 'dashboard'],
  RunRetention: ['scheduler'],
  SendOtpMessage: ['otp'],
  // The suppression list and its settings: the public API and the dashboard.
  ListOptOuts: ['gateway', 'dashboard'],
  AddOptOut: ['gateway', 'dashboard'],
  RemoveOptOut: ['gateway', 'dashboard'],
  GetOptOutSettings: ['gateway', 'dashboard'],
  SetOptOutSettings: ['gateway', 'dashboard'],
  // CSV campaigns: the dashboard alone (no public API yet).
  CreateCampaign: ['dashboard'],
  AddCampaignMessages: ['dashboard'],
  GetCampaign: ['dashboard'],
  ListCampaigns: ['dashboard'],
  PauseCampaign: ['dashboard'],
  ResumeCampaign: ['dashboard'],
  CancelCampaign: ['dashboard'],
  StoreCampaignUpload: ['dashboard'],
  GetCampaignUpload: ['dashboard'],
  ListCampaignUploads: ['dashboard'],
  TakeCampaignUpload: ['dashboard'],
};

/** The gRPC methods of `smsgw.message.v1.MessageService`: each reads its request, runs one use case, maps the answer. */
export function messageHandlers(service: MessageService): AsyncHandlers<message.MessageServiceHandlers> {
  return {
    async Send(req) {
      const [result] = await sendMessages(service, [{ request: sendInput(req), traceparent: '' }]);
      if (result!.error) throw result!.error;
      return { message: toProto(result!.row!), estimatedDelivery: result!.estimatedDelivery! };
    },

    async SendMany(req) {
      const results = await sendMessages(
        service,
        req.items.map((item) => ({ request: item.request && sendInput(item.request), traceparent: item.traceparent })),
      );
      return { results: results.map(toSendManyResult) };
    },

    async SendBatch(req) {
      const { batchId, rows, replayed } = await sendBatch(service, { ...req, mode: modeFromProto(req.mode) });
      return { batchId, messages: rows.map(toBatchItemProto), queuedAt: iso(rows[0]!.queued_at), replayed };
    },

    async SendOtpMessage(req) {
      const { row, estimatedDelivery, replayed } = await sendOtpMessage(service, { ...req, mode: modeFromProto(req.mode) });
      return { message: toProto(row), estimatedDelivery, replayed };
    },

    async GetMessage(req) {
      return toProto(await getMessage(service, req.clientId, req.messageId, modeFromProto(req.mode)));
    },

    async CancelMessage(req) {
      return toProto(await cancelMessage(service, req.clientId, req.messageId, modeFromProto(req.mode)));
    },

    async ClaimNext(req) {
      const claimed = await claimNext(service, req.deviceId, req.leaseMs, modeFromProto(req.mode), req.clientId, req.simsWithRoom);
      if (!claimed) return { attempt: 0 };
      const { row, text } = claimed;
      return { message: { ...toProto(row), text }, attempt: row.claim_count, traceparent: row.traceparent ?? '' };
    },

    async ClaimMany(req) {
      const leaseMs = req.claims[0]?.leaseMs ?? 0;
      const claimed = await claimMany(service, req.claims, leaseMs);
      return {
        results: claimed.map((c) =>
          c ? { message: claimedToProto(c.row, c.text), attempt: c.row.claim_count, traceparent: c.row.traceparent ?? '' } : { attempt: 0 },
        ),
      };
    },

    async AcceptMessage(req) {
      return acceptMessage(service, req.messageId, req.deviceId, req.at, req.sim);
    },

    async AcceptMany(req) {
      return { results: await acceptMany(service, req.accepts) };
    },

    async ReleaseDevice(req) {
      return releaseDevice(service, { clientId: req.clientId, deviceId: req.deviceId, reason: releaseReason(req.reason) });
    },

    async StrandedDevices(req) {
      const devices = await strandedDevices(service, req.deviceIds);
      return { devices: devices.map((d) => ({ deviceId: d.device_id, clientId: d.client_id, queued: d.queued })) };
    },

    async QueueDepths(req) {
      const depths = await queueDepths(service, req.deviceIds, req.upTo);
      return req.withRepairs ? { depths, repairs: await deviceRepairs(service, req.deviceIds) } : { depths };
    },

    async ListMessages(req) {
      const { rows, ...page } = await listMessages(service, req.clientId, modeFromProto(req.mode), req);
      return { messages: rows.map(toProto), ...page };
    },

    async ListReceived(req) {
      const { rows, ...page } = await listReceived(service, req.clientId, modeFromProto(req.mode), req);
      return { messages: rows.map(toReceivedProto), ...page };
    },

    async GetReceived(req) {
      return toReceivedProto(await getReceived(service, req.clientId, modeFromProto(req.mode), req.id));
    },

    async GetStats(req) {
      return getStats(service, req.clientId, modeFromProto(req.mode), req);
    },

    async ListOptOuts(req) {
      const { rows, ...page } = await listOptOuts(service, req.clientId, modeFromProto(req.mode), req);
      return { optOuts: rows.map(toOptOutProto), ...page };
    },

    async AddOptOut(req) {
      return toOptOutProto(await addOptOut(service, { ...req, mode: modeFromProto(req.mode) }));
    },

    async RemoveOptOut(req) {
      await removeOptOut(service, { ...req, mode: modeFromProto(req.mode) });
      return { removed: true };
    },

    async GetOptOutSettings(req) {
      return toSettingsProto(req.clientId, await getOptOutSettings(service, req.clientId));
    },

    async SetOptOutSettings(req) {
      const input = { optOutKeywords: req.optOutKeywords, startKeywords: req.startKeywords, otpIgnoresOptOut: req.otpIgnoresOptOut };
      return toSettingsProto(req.clientId, await setOptOutSettings(service, req.clientId, input));
    },

    async CreateCampaign(req) {
      return toCampaignProto(await createCampaign(service, { clientId: req.clientId, mode: modeFromProto(req.mode), name: req.name }));
    },

    async AddCampaignMessages(req) {
      const { batchId, rows, replayed } = await addCampaignMessages(service, { ...req, ...campaignKey(req) });
      return { batchId, messages: rows.map(toBatchItemProto), queuedAt: iso(rows[0]!.queued_at), replayed };
    },

    async GetCampaign(req) {
      return toCampaignProto(await getCampaign(service, campaignKey(req)));
    },

    async ListCampaigns(req) {
      const { rows, ...page } = await listCampaigns(service, req.clientId, modeFromProto(req.mode), req);
      return { campaigns: rows.map(toCampaignProto), ...page };
    },

    async PauseCampaign(req) {
      return toCampaignProto(await pauseCampaign(service, campaignKey(req)));
    },

    async ResumeCampaign(req) {
      return toCampaignProto(await resumeCampaign(service, campaignKey(req)));
    },

    async CancelCampaign(req) {
      return toCampaignProto(await cancelCampaign(service, campaignKey(req)));
    },

    async StoreCampaignUpload(req) {
      const input = {
        clientId: req.clientId,
        mode: modeFromProto(req.mode),
        name: req.name,
        fileName: req.fileName,
        headers: req.headers,
        rowCount: req.rowCount,
        content: req.content,
      };
      return toUploadProto(await storeCampaignUpload(service, input));
    },

    async GetCampaignUpload(req) {
      return toUploadProto(await getCampaignUpload(service, uploadKey(req), req.withContent));
    },

    async ListCampaignUploads(req) {
      const { uploads, ...use } = await listCampaignUploads(service, req.clientId, modeFromProto(req.mode));
      return { uploads: uploads.map(toUploadProto), ...use };
    },

    async TakeCampaignUpload(req) {
      return toUploadProto(await takeCampaignUpload(service, uploadKey(req)));
    },

    async RunRetention(req) {
      return { deleted: await runRetention(service, req.retentionDays) };
    },
  };
}
