import { AppError, modeToProto } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { UploadedCsv } from '../http/upload-form';
import { checkMapping, previewRows, readCsv, type CsvFile, type Mapping, type Preview } from './campaign-csv';
import type { Upstreams } from './upstreams';

/** Campaigns are sent with the live account (the phones paired to it). */
const MODE = modeToProto('live');
/** AddCampaignMessages takes at most this many messages. */
export const BATCH_SIZE = 100;

/** A file kept for its campaign (by the message service), as the mapping step shows it. */
export interface KeptUpload {
  uploadId: string;
  name: string;
  fileName: string;
  headers: string[];
  rows: number;
}

export interface LoadedUpload extends KeptUpload {
  file: CsvFile;
}

const kept = (u: message.CampaignUpload__Output): KeptUpload => ({
  uploadId: u.uploadId,
  name: u.name,
  fileName: u.fileName,
  headers: u.headers,
  rows: u.rowCount,
});

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Why the message service refused to keep one more file for the account, in words. */
function uploadsFull(err: AppError): string {
  const use = (err.details?.[0] ?? {}) as { uploads?: number; bytes?: number; max_uploads?: number; max_bytes?: number; room_at?: string };
  const room = use.room_at ? ` The oldest expires at ${use.room_at.slice(11, 16)} UTC.` : '';
  return (
    `Your account already has ${use.uploads ?? 0} file${use.uploads === 1 ? '' : 's'} waiting (${megabytes(use.bytes ?? 0)}), ` +
    `and keeps at most ${use.max_uploads ?? 0} files and ${megabytes(use.max_bytes ?? 0)}: ` +
    `send or discard one of them on the Campaigns page, or wait until one expires (an hour after its upload).${room}`
  );
}

/**
 * Keeps a checked file for the next steps (an hour, by the message service); its id, or the
 * error in words with its HTTP status (413 a file too large, 429 the account's files at their cap).
 */
export async function storeUpload(
  up: Upstreams,
  clientId: string,
  upload: { name: string; fileName: string; csv: UploadedCsv | undefined },
): Promise<{ uploadId: string } | { error: string; status: 400 | 413 | 429 }> {
  if (upload.name === '') return { error: 'Give the campaign a name.', status: 400 };
  if (Array.from(upload.name).length > 100) return { error: 'The name is too long: at most 100 characters.', status: 400 };
  const csv = upload.csv ?? { error: 'Choose a CSV file.' };
  if ('error' in csv) return { error: csv.error, status: csv.tooLarge ? 413 : 400 };
  try {
    const stored = await up.messages.storeCampaignUpload({
      clientId,
      mode: MODE,
      name: upload.name,
      fileName: upload.fileName,
      headers: csv.file.headers,
      rowCount: csv.file.rows.length,
      content: Buffer.from(csv.text, 'utf8'),
    });
    return { uploadId: stored.uploadId };
  } catch (err) {
    if (err instanceof AppError && err.code === 'CAMPAIGN_UPLOADS_FULL') return { error: uploadsFull(err), status: 429 };
    throw err;
  }
}

/** The client's file without its rows (the mapping step), or undefined once expired, taken, or another client's. */
export async function keptUpload(up: Upstreams, clientId: string, uploadId: string): Promise<KeptUpload | undefined> {
  try {
    return kept(await up.messages.getCampaignUpload({ clientId, mode: MODE, uploadId, withContent: false }));
  } catch (err) {
    if (err instanceof AppError && err.code === 'CAMPAIGN_UPLOAD_NOT_FOUND') return undefined;
    throw err;
  }
}

/** The client's file with its rows, read again (a turn of the event loop between pieces), or undefined once gone. */
export async function loadUpload(up: Upstreams, clientId: string, uploadId: string): Promise<LoadedUpload | undefined> {
  let found: message.CampaignUpload__Output;
  try {
    found = await up.messages.getCampaignUpload({ clientId, mode: MODE, uploadId, withContent: true });
  } catch (err) {
    if (err instanceof AppError && err.code === 'CAMPAIGN_UPLOAD_NOT_FOUND') return undefined;
    throw err;
  }
  const file = await readCsv(found.content.toString('utf8'));
  return 'error' in file ? undefined : { ...kept(found), file };
}

/** The column that looks like the phone numbers', for the mapping form's first choice. */
export function guessPhoneColumn(headers: string[]): string {
  return headers.find((h) => /phone|number|mobile|tel|to|num/i.test(h)) ?? headers[0]!;
}

/** The mapping step: the client's file with a first mapping (the phone column guessed), or undefined once gone. */
export async function uploadToMap(
  up: Upstreams,
  clientId: string,
  uploadId: string,
): Promise<{ upload: KeptUpload; mapping: Mapping } | undefined> {
  const upload = await keptUpload(up, clientId, uploadId);
  return upload && { upload, mapping: { phoneColumn: guessPhoneColumn(upload.headers), template: '', encrypted: false } };
}

/** The rows as messages and refusals, or the mapping's own error. */
export async function preview(upload: LoadedUpload, mapping: Mapping): Promise<Preview | { error: string }> {
  const error = checkMapping(upload.file, mapping);
  return error ? { error } : previewRows(upload.file, mapping);
}

/** The preview step: the client's file and its rows under `mapping` (or the mapping's error), or undefined once gone. */
export async function previewUpload(
  up: Upstreams,
  clientId: string,
  uploadId: string,
  mapping: Mapping,
): Promise<{ upload: LoadedUpload; rows: Preview | { error: string } } | undefined> {
  const upload = await loadUpload(up, clientId, uploadId);
  return upload && { upload, rows: await preview(upload, mapping) };
}

/** The files the account keeps for its campaigns now, and its caps (the Campaigns page). */
export async function waitingUploads(up: Upstreams, clientId: string): Promise<message.ListCampaignUploadsResponse__Output> {
  return up.messages.listCampaignUploads({ clientId, mode: MODE });
}

/** Discards one of the account's files; false when it was already gone. */
export async function discardUpload(up: Upstreams, clientId: string, uploadId: string): Promise<boolean> {
  try {
    await up.messages.takeCampaignUpload({ clientId, mode: MODE, uploadId });
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'CAMPAIGN_UPLOAD_NOT_FOUND') return false;
    throw err;
  }
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
export async function sendCampaign(up: Upstreams, clientId: string, uploadId: string, mapping: Mapping): Promise<CampaignSend> {
  const upload = await loadUpload(up, clientId, uploadId);
  if (!upload) return { outcome: 'refused', error: EXPIRED };
  const rows = await preview(upload, mapping);
  if ('error' in rows) return { outcome: 'refused', error: rows.error };
  const sent = await storeCampaign(up, clientId, upload, rows);
  if ('campaignId' in sent && !sent.stopped) return { outcome: 'sent', campaignId: sent.campaignId };
  if ('campaignId' in sent)
    return { outcome: 'stopped', campaign: await getCampaign(up, clientId, sent.campaignId), stopped: sent.stopped! };
  return { outcome: 'refused', error: sent.error, again: sent.error === EXPIRED ? undefined : { upload, rows } };
}

/**
 * Sends the upload's good rows: checks a phone is online (nothing is stored
 * otherwise), creates the campaign, then adds the messages in batches of 100,
 * open to the fleet (the phones balance them by claiming). The upload is taken at once, so that a second click
 * does not send it twice. The campaign's id, or an error in words.
 */
async function storeCampaign(
  up: Upstreams,
  clientId: string,
  upload: LoadedUpload,
  rows: Preview,
): Promise<{ campaignId: string; stopped?: string } | { error: string }> {
  if (rows.good.length === 0) return { error: 'No row of the file can be sent: see the reasons below.' };
  const { devices } = await up.devices.listDevices({ clientId, onlineOnly: true });
  const online = devices.filter((d) => d.status === 'online');
  if (online.length === 0) return { error: NO_PHONE_ONLINE };
  // Taken: a second send of the same upload finds nothing.
  if (!(await discardUpload(up, clientId, upload.uploadId))) return { error: EXPIRED };
  const campaign = await up.messages.createCampaign({ clientId, mode: MODE, name: upload.name });
  for (let at = 0; at < rows.good.length; at += BATCH_SIZE) {
    const batch = rows.good.slice(at, at + BATCH_SIZE);
    try {
      await up.messages.addCampaignMessages({
        clientId,
        mode: MODE,
        campaignId: campaign.campaignId,
        // No phone chosen: the messages go to the fleet, and the online phones share them as they claim
        // (the first online phone is only the one they name until then).
        deviceIds: [online[0]!.deviceId],
        fleet: true,
        // An encrypted row's text is its envelope, stored and forwarded untouched (flagged by its prefix).
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

export const EXPIRED = 'This upload expired (files are kept for an hour), was discarded or was already sent: upload the file again.';

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
