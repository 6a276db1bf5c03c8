import { AppError } from '@smsgw/platform';
import type { CampaignKey, CampaignMove, CampaignWithCounts } from '../data/campaign.repository';
import type { Mode } from '../domain/message-row';
import { campaignName, newCampaignId } from '../domain/campaign';
import { pageOf, totalPages } from '../domain/history';
import type { OutgoingFields } from '../domain/outgoing-message';
import type { MessageService } from './message-service';
import { sendBatch, type SentBatch } from './send-batch.use-case';

/** A campaign's messages stored at once, at most. */
export const CAMPAIGN_ADD_MAX = 100;

/** The priority of a campaign's messages: the API's default. */
const CAMPAIGN_PRIORITY = 3;

/** Creates an empty campaign, `running`. */
export async function createCampaign(
  service: MessageService,
  req: { clientId: string; mode: Mode; name: string },
): Promise<CampaignWithCounts> {
  return service.campaigns.create({ campaign_id: newCampaignId(), client_id: req.clientId, mode: req.mode, name: campaignName(req.name) });
}

/** One campaign of the client in a mode, with its counts. */
export async function getCampaign(service: MessageService, key: CampaignKey): Promise<CampaignWithCounts> {
  const found = await service.campaigns.find(key);
  if (!found) throw new AppError('CAMPAIGN_NOT_FOUND');
  return found;
}

/** One page of the client's campaigns in a mode, newest first. */
export async function listCampaigns(service: MessageService, clientId: string, mode: Mode, query: { page: number; limit: number }) {
  const page = pageOf(query.page, query.limit);
  const { rows, total } = await service.campaigns.list(clientId, mode, page);
  return { rows, page: page.page, perPage: page.limit, totalPages: totalPages(total, page.limit), totalItems: total };
}

/**
 * Stores up to 100 messages of a campaign as SendBatch stores a batch (same
 * checks, opt-outs, events), with the campaign's lock and check in the same
 * transaction: refused when the campaign is cancelled, held when it is paused.
 * With `fleet` (live), they are stored open to the client's fleet.
 */
export async function addCampaignMessages(
  service: MessageService,
  req: CampaignKey & { deviceIds: string[]; messages: OutgoingFields[]; sims: number[]; fleet?: boolean },
): Promise<SentBatch> {
  if (req.messages.length > CAMPAIGN_ADD_MAX) throw new AppError('TOO_MANY_RECIPIENTS');
  const input = {
    clientId: req.clientId,
    mode: req.mode,
    priority: CAMPAIGN_PRIORITY,
    webhookUrl: '',
    deviceIds: req.deviceIds,
    messages: req.messages,
    sims: req.sims,
    idempotencyKey: '',
    requestHash: '',
    campaignId: req.campaignId,
    // Open to the fleet: the phones balance them as they claim.
    fleet: req.fleet === true,
  };
  return sendBatch(service, input, async (db) => {
    const status = await service.campaigns.lockForAdd(db, req);
    if (!status) throw new AppError('CAMPAIGN_NOT_FOUND');
    if (status === 'cancelled') throw new AppError('CAMPAIGN_NOT_RUNNING');
  });
}

/** Pauses a campaign: its messages no phone has taken are held. */
export async function pauseCampaign(service: MessageService, key: CampaignKey): Promise<CampaignWithCounts> {
  refuseCancelled(await service.campaigns.pause(key));
  return getCampaign(service, key);
}

/** Resumes a campaign: its held messages are due again, and their phones are woken. */
export async function resumeCampaign(service: MessageService, key: CampaignKey): Promise<CampaignWithCounts> {
  const move = refuseCancelled(await service.campaigns.resume(key));
  service.wakeUps.wakeResumed(move.rows);
  return getCampaign(service, key);
}

/**
 * Cancels a campaign: its messages no phone has taken end `cancelled` (and
 * the timers of scheduled ones go); those a phone took go on. Idempotent.
 */
export async function cancelCampaign(service: MessageService, key: CampaignKey): Promise<CampaignWithCounts> {
  const move = await service.campaigns.cancel(key);
  if (!move.before) throw new AppError('CAMPAIGN_NOT_FOUND');
  const timers = service.scheduledSends;
  if (timers) await Promise.all(move.rows.map((row) => timers.cancel(row)));
  return getCampaign(service, key);
}

function refuseCancelled(move: CampaignMove): CampaignMove {
  if (!move.before) throw new AppError('CAMPAIGN_NOT_FOUND');
  if (move.before === 'cancelled') throw new AppError('CAMPAIGN_NOT_RUNNING');
  return move;
}
