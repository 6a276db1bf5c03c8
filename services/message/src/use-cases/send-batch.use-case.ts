import { AppError, currentTraceparent, newId, type PoolClient } from '@smsgw/platform';
import type { MessageRow, PlacedMessage } from '../domain/message-row';
import { isRefusedData, refusedError } from '../data/sql-errors';
import { ttlOf } from '../domain/fleet';
import { repliesOf, requestedSim } from '../domain/sim';
import { asAnswered, idempotencyOf, outgoing, storable, type OutgoingFields, type SendFields } from '../domain/outgoing-message';
import type { MessageService } from './message-service';
import { markOptedOut, publishFailed } from './opt-outs.use-case';

/** A bulk or personalised send: one message per device id, in order. */
export interface SendBatchInput extends SendFields {
  deviceIds: string[];
  messages: OutgoingFields[];
  idempotencyKey: string;
  requestHash: string;
  /** One per message (0: no limit); empty: no limit for any. */
  ttlSeconds?: number[];
  /** The client chose the devices: no message of the batch moves to another phone. */
  pinned?: boolean;
  /** One SIM slot per message (0: the phone's choice); empty: 0 for all. */
  sims?: number[];
  /** Replies within 24 h go to webhook_url, for every message. */
  replies?: boolean;
  /** The campaign its messages belong to (stored held while it is paused). */
  campaignId?: string;
  /**
   * Live only: every message open to the client's fleet, no phone chosen (a campaign's unpinned
   * messages); `deviceIds` holds one device, the one they name until a phone claims them.
   */
  fleet?: boolean;
}

/** The batch stored, or the one its Idempotency-Key stored earlier (`replayed`). */
export interface SentBatch {
  batchId: string;
  rows: MessageRow[];
  replayed: boolean;
}

/** Wakes the client's phones for its fleet messages that may be claimed now (not held, not opted out, not scheduled). */
function wakeFleet(service: MessageService, placed: PlacedMessage[]): void {
  const now = new Date();
  const due = placed.filter(({ row }) => row.status === 'queued' && !row.held && (!row.scheduled_at || row.scheduled_at <= now));
  if (due.length > 0) service.wakeUps.wakeClient(due[0]!.row.client_id, due.length);
}

/**
 * Stores a batch in one statement: all its messages or none. Its
 * Idempotency-Key stored already gives the batch stored then. `before` runs
 * first in the same transaction (a campaign's lock and check).
 */
export async function sendBatch(
  service: MessageService,
  req: SendBatchInput,
  before?: (db: PoolClient) => Promise<void>,
): Promise<SentBatch> {
  if (req.messages.length === 0) throw new AppError('VALIDATION_ERROR', { details: [{ field: 'messages', code: 'MESSAGE_REQUIRED' }] });
  const fleet = req.fleet === true;
  if (fleet ? req.deviceIds.length !== 1 || req.mode !== 'live' : req.deviceIds.length !== req.messages.length)
    throw new AppError('INVALID_DEVICE_ID');
  const batchId = newId('batch');
  const batch = { batchId, clientId: storable(req.clientId, 'client_id'), mode: req.mode, idempotency: idempotencyOf(req) };
  const ttls = req.ttlSeconds ?? [];
  if (ttls.length > 0 && ttls.length !== req.messages.length)
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'ttl_seconds', code: 'VALIDATION_ERROR' }] });
  const sims = req.sims ?? [];
  if (sims.length > 0 && sims.length !== req.messages.length)
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'sims', code: 'VALIDATION_ERROR' }] });
  const replies = repliesOf(req.replies, req.webhookUrl || null);
  const traceparent = currentTraceparent();
  const messages = req.messages.map((m, i) => {
    try {
      const ttlSeconds = ttlOf(ttls[i], 'ttl');
      const requested = requestedSim(sims[i], 'sim');
      const message = outgoing(req, req.deviceIds[fleet ? 0 : i]!, m, null, batchId);
      message.traceparent = traceparent;
      message.ttlSeconds = ttlSeconds;
      message.pinned = req.pinned === true;
      message.requestedSim = requested;
      message.replies = replies;
      message.campaignId = req.campaignId ?? null;
      message.fleet = fleet;
      return message;
    } catch (err) {
      // Name the message that failed, as the API does.
      if (err instanceof AppError && err.details?.length === 1) {
        throw new AppError(err.code, { details: [{ ...err.details[0], field: `messages[${i}].${err.details[0]!.field}` }] });
      }
      throw err;
    }
  });
  // Every device of the batch is its client's, or nothing is stored.
  await service.devices.require(messages.map((m) => ({ clientId: m.clientId, deviceId: m.deviceId })));
  let placed: PlacedMessage[];
  // One lookup for the batch's numbers: those on the list are stored failed (OPTED_OUT), the others queued.
  await markOptedOut(service, messages);
  try {
    placed = await service.queue.insertPlaced(messages, batch, service.config.idempotencyTtlSeconds, publishFailed(service), before);
  } catch (err) {
    throw isRefusedData(err) ? refusedError(err) : err;
  }
  if (placed.length > 0) {
    if (!fleet) service.wakeUps.wake(placed);
    else wakeFleet(service, placed);
    return { batchId, rows: placed.map((p) => p.row), replayed: false };
  }
  // The key is stored already: the batch stored then, or another request's key.
  const [key] = await service.keys.findKeys([{ clientId: batch.clientId, mode: batch.mode, key: batch.idempotency!.key }]);
  if (key && key.request_hash !== batch.idempotency!.requestHash) throw new AppError('IDEMPOTENCY_KEY_REUSED');
  const rows = key?.batch_id ? await service.messages.findBatch(key.batch_id) : [];
  if (rows.length === 0) throw new AppError('IDEMPOTENCY_IN_PROGRESS', { retryAfterSeconds: 1 });
  return { batchId: key!.batch_id!, rows: rows.map(asAnswered), replayed: true };
}
