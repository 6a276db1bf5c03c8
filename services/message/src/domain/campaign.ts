import { AppError, newId } from '@smsgw/platform';
import { storable } from './outgoing-message';

/** A campaign's name, at most. */
export const CAMPAIGN_NAME_MAX = 100;

/**
 * A new campaign id, `cmp_` then a ULID: time-sortable like every id (the
 * platform's generator; its list of prefixes stays the public ids').
 */
export const newCampaignId = () => `cmp_${newId('batch').slice('batch_'.length)}`;

/** A campaign's name: 1 to 100 characters once trimmed. */
export function campaignName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > CAMPAIGN_NAME_MAX)
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'name', code: 'VALIDATION_ERROR' }] });
  return storable(trimmed, 'name');
}
