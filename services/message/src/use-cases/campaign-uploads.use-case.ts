import { AppError } from '@smsgw/platform';
import type { CampaignUploadRow, UploadKey } from '../data/campaign-upload.repository';
import type { Mode } from '../domain/message-row';
import { isUploadId, newUploadId, uploadFields } from '../domain/campaign';
import type { MessageService } from './message-service';

/**
 * Keeps a campaign's file until its send (`ttlMs`), within the client's caps: at most
 * `maxPerClient` files and `maxBytesPerClient` bytes kept at once (per mode). Past one,
 * CAMPAIGN_UPLOADS_FULL with what the kept files use and when the oldest expires.
 */
export async function storeCampaignUpload(
  service: MessageService,
  req: { clientId: string; mode: Mode; name: string; fileName: string; headers: string[]; rowCount: number; content: Buffer },
): Promise<CampaignUploadRow> {
  const fields = uploadFields(req);
  const { ttlMs, maxPerClient, maxBytesPerClient } = service.config.campaignUploads;
  const result = await service.campaignUploads.store(
    {
      upload_id: newUploadId(),
      client_id: req.clientId,
      mode: req.mode,
      name: fields.name,
      file_name: fields.fileName,
      headers: fields.headers,
      row_count: fields.rowCount,
      byte_size: req.content.length,
      content: req.content,
      ttlMs,
    },
    { maxUploads: maxPerClient, maxBytes: maxBytesPerClient },
  );
  if ('stored' in result) return result.stored;
  const { uploads, bytes, roomAt } = result.full;
  throw new AppError('CAMPAIGN_UPLOADS_FULL', {
    details: [
      {
        field: 'content',
        code: 'CAMPAIGN_UPLOADS_FULL',
        uploads,
        bytes,
        max_uploads: maxPerClient,
        max_bytes: maxBytesPerClient,
        ...(roomAt ? { room_at: roomAt.toISOString() } : {}),
      },
    ],
  });
}

/** One of the client's files (with its content when asked), unless expired or taken. */
export async function getCampaignUpload(service: MessageService, key: UploadKey, withContent: boolean): Promise<CampaignUploadRow> {
  const found = isUploadId(key.uploadId) ? await service.campaignUploads.find(key, withContent) : undefined;
  if (!found) throw new AppError('CAMPAIGN_UPLOAD_NOT_FOUND');
  return found;
}

/** The client's files kept now, and its caps. */
export async function listCampaignUploads(service: MessageService, clientId: string, mode: Mode) {
  const uploads = await service.campaignUploads.list(clientId, mode);
  const { maxPerClient, maxBytesPerClient } = service.config.campaignUploads;
  return { uploads, maxUploads: maxPerClient, maxBytes: maxBytesPerClient, bytes: uploads.reduce((sum, u) => sum + u.byte_size, 0) };
}

/** Removes the client's file, once (a send, or a discard). */
export async function takeCampaignUpload(service: MessageService, key: UploadKey): Promise<CampaignUploadRow> {
  const taken = isUploadId(key.uploadId) ? await service.campaignUploads.take(key) : undefined;
  if (!taken) throw new AppError('CAMPAIGN_UPLOAD_NOT_FOUND');
  return taken;
}
