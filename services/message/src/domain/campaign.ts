import { AppError, newId } from '@smsgw/platform';
import { storable } from './outgoing-message';

/** A campaign's name, at most. */
export const CAMPAIGN_NAME_MAX = 100;

/**
 * A new campaign id, `cmp_` then a ULID: time-sortable like every id (the
 * platform's generator; its list of prefixes stays the public ids').
 */
export const newCampaignId = () => `cmp_${newId('batch').slice('batch_'.length)}`;

/** A new campaign file id, `upl_` then a ULID. */
export const newUploadId = () => `upl_${newId('batch').slice('batch_'.length)}`;

/** Whether a string can name a campaign file (anything else is not looked up). */
export const isUploadId = (id: string) => /^upl_[0-9A-Za-z]{26}$/.test(id);

/** A campaign file's content, at most: the dashboard's bound on a CSV file. */
export const CAMPAIGN_UPLOAD_MAX_BYTES = 2 * 1024 * 1024;
/** A campaign file's columns, at most (the dashboard's bound; the header names are kept with the file). */
export const CAMPAIGN_UPLOAD_MAX_COLUMNS = 100;
/** A campaign file's name as the browser gave it, at most. */
const FILE_NAME_MAX = 200;

/** What a campaign file keeps besides its content, checked: its name, file name, header names and row count. */
export function uploadFields(req: { name: string; fileName: string; headers: string[]; rowCount: number; content: Buffer }) {
  const name = campaignName(req.name);
  const invalid = (field: string) => new AppError('VALIDATION_ERROR', { details: [{ field, code: 'VALIDATION_ERROR' }] });
  if ([...req.fileName].length > FILE_NAME_MAX) throw invalid('file_name');
  if (req.headers.length === 0 || req.headers.length > CAMPAIGN_UPLOAD_MAX_COLUMNS || req.headers.some((h) => [...h].length > 200))
    throw invalid('headers');
  if (!Number.isInteger(req.rowCount) || req.rowCount < 0) throw invalid('row_count');
  if (req.content.length > CAMPAIGN_UPLOAD_MAX_BYTES) throw invalid('content');
  return {
    name,
    fileName: storable(req.fileName, 'file_name'),
    headers: req.headers.map((h) => storable(h, 'headers')),
    rowCount: req.rowCount,
  };
}

/** A campaign's name: 1 to 100 characters once trimmed. */
export function campaignName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > CAMPAIGN_NAME_MAX)
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'name', code: 'VALIDATION_ERROR' }] });
  return storable(trimmed, 'name');
}
