import { randomBytes } from 'node:crypto';
import { AppError, modeToProto, type Redis } from '@smsgw/platform';
import type { devicehub, message } from '@smsgw/proto';
import { checkMapping, parseCsv, previewRows, type CsvFile, type Mapping, type Preview } from './campaign-csv';
import type { Upstreams } from './upstreams';

/** Campaigns are sent with the live account (the phones paired to it). */
const MODE = modeToProto('live');
/** An uploaded file waits this long for its mapping and its send. */
export const UPLOAD_TTL_SECONDS = 3600;
/** AddCampaignMessages takes at most this many messages. */
export const BATCH_SIZE = 100;

export interface Upload {
  name: string;
  fileName: string;
  csv: string;
}

const uploadKey = (clientId: string, uploadId: string) => `dashboard:campaign-upload:${clientId}:${uploadId}`;
const isUploadId = (id: string) => /^[A-Za-z0-9_-]{16,64}$/.test(id);

/** Keeps a checked file for the next steps (an hour); its id, or the file's error in words. */
export async function storeUpload(redis: Redis, clientId: string, upload: Upload): Promise<{ uploadId: string } | { error: string }> {
  if (upload.name === '') return { error: 'Give the campaign a name.' };
  if (Array.from(upload.name).length > 100) return { error: 'The name is too long: at most 100 characters.' };
  if (upload.csv.trim() === '') return { error: 'Choose a CSV file.' };
  const parsed = parseCsv(upload.csv);
  if ('error' in parsed) return parsed;
  const uploadId = randomBytes(18).toString('base64url');
  await redis.set(uploadKey(clientId, uploadId), JSON.stringify(upload), 'EX', UPLOAD_TTL_SECONDS);
  return { uploadId };
}

export interface LoadedUpload extends Upload {
  uploadId: string;
  file: CsvFile;
}

/** The client's upload, parsed, or undefined once expired (or another client's). */
export async function loadUpload(redis: Redis, clientId: string, uploadId: string): Promise<LoadedUpload | undefined> {
  if (!isUploadId(uploadId)) return undefined;
  const text = await redis.get(uploadKey(clientId, uploadId));
  return text ? parsedUpload(uploadId, JSON.parse(text) as Upload) : undefined;
}

function parsedUpload(uploadId: string, upload: Upload): LoadedUpload | undefined {
  const file = parseCsv(upload.csv);
  return 'error' in file ? undefined : { ...upload, uploadId, file };
}

/** The column that looks like the phone numbers', for the mapping form's first choice. */
export function guessPhoneColumn(headers: string[]): string {
  return headers.find((h) => /phone|number|mobile|tel|to|num/i.test(h)) ?? headers[0]!;
}

/** The mapping step: the client's upload with a first mapping (the phone column guessed), or undefined once expired. */
export async function uploadToMap(
  redis: Redis,
  clientId: string,
  uploadId: string,
): Promise<{ upload: LoadedUpload; mapping: Mapping } | undefined> {
  const upload = await loadUpload(redis, clientId, uploadId);
  return upload && { upload, mapping: { phoneColumn: guessPhoneColumn(upload.file.headers), template: '' } };
}

/** The rows as messages and refusals, or the mapping's own error. */
export function preview(upload: LoadedUpload, mapping: Mapping): Preview | { error: string } {
  const error = checkMapping(upload.file, mapping);
  return error ? { error } : previewRows(upload.file, mapping);
}

/** The preview step: the client's upload and its rows under `mapping` (or the mapping's error), or undefined once expired. */
export async function previewUpload(
  redis: Redis,
  clientId: string,
  uploadId: string,
  mapping: Mapping,
): Promise<{ upload: LoadedUpload; rows: Preview | { error: string } } | undefined> {
  const upload = await loadUpload(redis, clientId, uploadId);
  return upload && { upload, rows: preview(upload, mapping) };
}

/**
 * The device of each of `count` messages, as the gateway's automatic choice
 * spreads a batch (`spreadOverDevices`): among the online phones, those with
 * room to send now (all of them when none has), each message on the phone
 * whose queue is then the shortest.
 */
export function spreadOverPhones(online: devicehub.Device__Output[], depths: Record<string, number>, count: number): string[] {
  const withRoom = online.filter((d) => d.hasRoom);
  const ids = (withRoom.length > 0 ? withRoom : online).map((d) => d.deviceId);
  const load = new Map(ids.map((id) => [id, depths[id] ?? 0]));
  const chosen: string[] = [];
  for (let n = 0; n < count; n++) {
    let best = ids[0]!;
    for (const id of ids) if (load.get(id)! < load.get(best)!) best = id;
    load.set(best, load.get(best)! + 1);
    chosen.push(best);
  }
  return chosen;
}

export const NO_PHONE_ONLINE = 'None of your phones is online: open the app on a phone, then send the campaign.';

export type CampaignSend =
  /** Stored whole. */
  | { outcome: 'sent'; campaignId: string }
  /** Stored in part: the campaign as it is, and what is missing in words. */
  | { outcome: 'stopped'; campaign: message.Campaign__Output; stopped: string }
  /**
   * Refused before anything was stored, in words; with the preview to show it on again, while the
   * upload is there and its mapping holds.
   */
  | { outcome: 'refused'; error: string; again?: { upload: LoadedUpload; rows: Preview } };

/** The send step: the upload sent (`storeCampaign`), and what its page shows after it. */
export async function sendCampaign(
  up: Upstreams,
  redis: Redis,
  clientId: string,
  uploadId: string,
  mapping: Mapping,
): Promise<CampaignSend> {
  const sent = await storeCampaign(up, redis, clientId, uploadId, mapping);
  if ('campaignId' in sent && !sent.stopped) return { outcome: 'sent', campaignId: sent.campaignId };
  if ('campaignId' in sent)
    return { outcome: 'stopped', campaign: await getCampaign(up, clientId, sent.campaignId), stopped: sent.stopped! };
  const upload = await loadUpload(redis, clientId, uploadId);
  const rows = upload && preview(upload, mapping);
  return { outcome: 'refused', error: sent.error, again: upload && rows && !('error' in rows) ? { upload, rows } : undefined };
}

/**
 * Sends the upload's good rows: checks a phone is online (nothing is stored
 * otherwise), creates the campaign, then adds the messages in batches of 100,
 * each on its phone. The upload is taken at once, so that a second click
 * does not send it twice. The campaign's id, or an error in words.
 */
async function storeCampaign(
  up: Upstreams,
  redis: Redis,
  clientId: string,
  uploadId: string,
  mapping: Mapping,
): Promise<{ campaignId: string; stopped?: string } | { error: string }> {
  const upload = isUploadId(uploadId) ? await loadUpload(redis, clientId, uploadId) : undefined;
  if (!upload) return { error: EXPIRED };
  const rows = preview(upload, mapping);
  if ('error' in rows) return rows;
  if (rows.good.length === 0) return { error: 'No row of the file can be sent: see the reasons below.' };
  const { devices } = await up.devices.listDevices({ clientId, onlineOnly: true });
  const online = devices.filter((d) => d.status === 'online');
  if (online.length === 0) return { error: NO_PHONE_ONLINE };
  // Taken: a second send of the same upload finds nothing.
  if ((await redis.del(uploadKey(clientId, uploadId))) === 0) return { error: EXPIRED };
  const { depths } = online.length > 1 ? await up.messages.queueDepths({ deviceIds: online.map((d) => d.deviceId) }) : { depths: {} };
  const deviceIds = spreadOverPhones(online, depths, rows.good.length);
  const campaign = await up.messages.createCampaign({ clientId, mode: MODE, name: upload.name });
  for (let at = 0; at < rows.good.length; at += BATCH_SIZE) {
    const batch = rows.good.slice(at, at + BATCH_SIZE);
    try {
      await up.messages.addCampaignMessages({
        clientId,
        mode: MODE,
        campaignId: campaign.campaignId,
        deviceIds: deviceIds.slice(at, at + BATCH_SIZE),
        messages: batch.map((r) => ({ to: r.to, text: r.text, metadataJson: '' })),
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // The campaign exists with the batches stored so far: its page says what is missing.
      return {
        campaignId: campaign.campaignId,
        stopped: `Only ${at} of ${rows.good.length} messages were stored (from line ${batch[0]!.line} on, none): ${err.message}`,
      };
    }
  }
  return { campaignId: campaign.campaignId };
}

export const EXPIRED = 'This upload expired (files are kept for an hour) or was already sent: upload the file again.';

export async function listCampaigns(up: Upstreams, clientId: string, page: number): Promise<message.ListCampaignsResponse__Output> {
  return up.messages.listCampaigns({ clientId, mode: MODE, page, limit: 25 });
}

/** The client's campaign (CAMPAIGN_NOT_FOUND, a 404, for another client's). */
export async function getCampaign(up: Upstreams, clientId: string, campaignId: string): Promise<message.Campaign__Output> {
  return up.messages.getCampaign({ clientId, mode: MODE, campaignId });
}

export type CampaignMove = 'pause' | 'resume' | 'cancel';

/** Pauses, resumes or cancels the client's campaign; the campaign after it, or the refusal in words with the campaign as it is. */
export async function moveCampaign(
  up: Upstreams,
  clientId: string,
  campaignId: string,
  move: CampaignMove,
): Promise<{ moved: true; campaign: message.Campaign__Output } | { moved: false; error: string; campaign: message.Campaign__Output }> {
  const moved = await applyMove(up, clientId, campaignId, move);
  if ('campaign' in moved) return { moved: true, campaign: moved.campaign };
  return { moved: false, error: moved.error, campaign: await getCampaign(up, clientId, campaignId) };
}

async function applyMove(
  up: Upstreams,
  clientId: string,
  campaignId: string,
  move: CampaignMove,
): Promise<{ campaign: message.Campaign__Output } | { error: string }> {
  const req = { clientId, mode: MODE, campaignId };
  try {
    const campaign =
      move === 'pause'
        ? await up.messages.pauseCampaign(req)
        : move === 'resume'
          ? await up.messages.resumeCampaign(req)
          : await up.messages.cancelCampaign(req);
    return { campaign };
  } catch (err) {
    if (err instanceof AppError && err.code === 'CAMPAIGN_NOT_RUNNING')
      return { error: 'This campaign is cancelled: it cannot be paused or resumed.' };
    throw err;
  }
}
