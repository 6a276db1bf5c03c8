import { AppError, activeSpan, endSpan, isPostgresUnavailable, startSpanInTrace, traceparentOf, withSpan } from '@smsgw/platform';
import type { NewMessage, PlacedMessage } from '../domain/message-row';
import { isRefusedData, refusedError, sqlState } from '../data/sql-errors';
import { ttlOf } from '../domain/fleet';
import { repliesOf, requestedSim } from '../domain/sim';
import { asAnswered, estimateDelivery, idempotencyOf, outgoing, type OutgoingFields, type SendFields } from '../domain/outgoing-message';
import { DeviceOwnership } from './device-ownership';
import { averagePacingMs, type MessageService } from './message-service';
import { markOptedOut, publishFailed } from './opt-outs.use-case';

/** One send, as `message.Send` and each item of `message.SendMany` carry it. */
export interface SendInput extends SendFields {
  deviceId: string;
  message: OutgoingFields | null;
  scheduledAt: string;
  idempotencyKey: string;
  requestHash: string;
  /** Seconds it may wait for a phone (the gateway resolved the client's default); 0: no limit. */
  ttlSeconds?: number;
  /** The client chose the device: the message never moves to another phone. */
  pinned?: boolean;
  /** The SIM slot to send through (1 to 8); 0 or absent: the phone's choice. */
  sim?: number;
  /** Replies from `to` within 24 h go to webhook_url too (which it then needs). */
  replies?: boolean;
}

/** A send gathered by the gateway, with the trace of the API request it came from. */
export interface SendItem {
  request: SendInput | null;
  traceparent: string;
}

/** What became of one send: stored now, stored already (same key), or refused. */
export interface SendOutcome {
  row?: PlacedMessage['row'];
  estimatedDelivery?: string;
  /** The message was stored by an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
  error?: AppError;
}

/**
 * Stores the messages in one statement; when Postgres refuses that
 * statement for what one of them carries, stores each on its own, so that
 * one send's input never fails the others. For each message: where it was
 * placed, `undefined` when its Idempotency-Key was stored already, or the
 * error that refused it alone. A database that is down before anything is
 * stored fails them all.
 */
async function store(service: MessageService, messages: NewMessage[]): Promise<Stored[]> {
  const { log } = service;
  try {
    return await storeUnlistedFirst(service, messages);
  } catch (err) {
    if (!isRefusedData(err)) throw err;
    if (messages.length === 1) return [refusedError(err)];
    log.warn({ sqlstate: sqlState(err), gathered: messages.length }, 'gathered sends refused by the database: storing them one by one');
  }
  const out: Stored[] = [];
  for (const m of messages) {
    try {
      out.push(...(await storeUnlistedFirst(service, [m])));
    } catch (err) {
      out.push(refusedError(err));
    }
  }
  return out;
}

/** What became of a message handed to `store`: where it was placed, `undefined` (its key was stored already), or its error. */
type Stored = PlacedMessage | AppError | undefined;

/**
 * Stores the messages in one statement that also leaves out those whose
 * number is on their client's list: no lookup before it. Only when it left
 * some out (listed, or their Idempotency-Key stored already) are their
 * numbers looked up and those messages stored again: the listed ones failed
 * (OPTED_OUT), their `sms.failed` published before their commit. The first
 * statement's messages are stored by then, so a failure after it is the
 * left-out messages' alone (each stored on its own when Postgres refuses
 * what one carries). A failure of the first statement is thrown.
 */
async function storeUnlistedFirst(service: MessageService, messages: NewMessage[]): Promise<Stored[]> {
  const { queue, config } = service;
  const stored = new Map<string, Stored>(
    (await queue.insertUnlisted(messages, config.idempotencyTtlSeconds)).map((p) => [p.row.message_id, p]),
  );
  const left = messages.filter((m) => !stored.has(m.messageId));
  const storeLeft = async (some: NewMessage[]) => {
    for (const p of await queue.insertPlaced(some, undefined, config.idempotencyTtlSeconds, publishFailed(service))) {
      stored.set(p.row.message_id, p);
    }
  };
  if (left.length > 0) {
    try {
      await markOptedOut(service, left);
      await storeLeft(left);
    } catch (err) {
      for (const m of left) {
        try {
          if (isRefusedData(err) && left.length > 1) await storeLeft([m]);
          else throw err;
        } catch (alone) {
          stored.set(m.messageId, leftOutError(alone));
        }
      }
    }
  }
  return messages.map((m) => stored.get(m.messageId));
}

/** A left-out message's own error: a database out of reach is SERVICE_UNAVAILABLE, as a whole call's would be. */
const leftOutError = (err: unknown): AppError =>
  isPostgresUnavailable(err) ? new AppError('SERVICE_UNAVAILABLE', { retryAfterSeconds: 1, cause: err }) : refusedError(err);

/**
 * The answers to sends whose Idempotency-Key was stored already: the
 * message stored then (same id, its current status), or
 * IDEMPOTENCY_KEY_REUSED when the key came with another request.
 */
async function replays(service: MessageService, messages: { index: number; message: NewMessage }[], results: SendOutcome[]): Promise<void> {
  if (messages.length === 0) return;
  const keyOf = (clientId: string, mode: string, key: string) => `${clientId}\u0000${mode}\u0000${key}`;
  const keys = await service.keys.findKeys(
    messages.map(({ message: m }) => ({ clientId: m.clientId, mode: m.mode, key: m.idempotency!.key })),
  );
  const byKey = new Map(keys.map((k) => [keyOf(k.client_id, k.mode, k.idempotency_key), k]));
  const wanted = messages.map(({ message: m }) => byKey.get(keyOf(m.clientId, m.mode, m.idempotency!.key)));
  const ids = wanted.flatMap((k, i) =>
    k?.message_id && k.request_hash === messages[i]!.message.idempotency!.requestHash ? [k.message_id] : [],
  );
  const rows = new Map((ids.length > 0 ? await service.queue.findPlaced(ids) : []).map((p) => [p.row.message_id, p]));
  messages.forEach(({ index, message: m }, i) => {
    const key = wanted[i];
    const found = key?.message_id ? rows.get(key.message_id) : undefined;
    if (key && key.request_hash !== m.idempotency!.requestHash) results[index] = { error: new AppError('IDEMPOTENCY_KEY_REUSED') };
    else if (found && found.row.client_id === m.clientId) {
      results[index] = {
        row: asAnswered(found.row),
        estimatedDelivery: estimateDelivery(found.row, found.ahead, averagePacingMs(service)),
        replayed: true,
      };
    }
    // Taken over (expired) or deleted meanwhile: the client may simply try again.
    else results[index] = { error: new AppError('IDEMPOTENCY_IN_PROGRESS', { retryAfterSeconds: 1 }) };
  });
}

/**
 * Stores independent sends in one statement (one transaction, one WAL
 * flush), wakes their devices, and estimates each one's delivery. An item
 * refused here fails alone, also when Postgres refuses what it carries
 * (see `store`); a database that is down fails them all. A send whose
 * Idempotency-Key is stored already gets the message stored then.
 * Each item's work is recorded in the trace of the API request it came
 * from (`traceparent`), linked to the span of the call that carried it.
 */
export async function sendMessages(service: MessageService, items: SendItem[]): Promise<SendOutcome[]> {
  const { log } = service;
  const call = activeSpan()?.spanContext();
  const spans = items.map((item) => startSpanInTrace('message.queue', item.traceparent, call ? [call] : []));
  const results: SendOutcome[] = new Array(items.length);
  const accepted: { index: number; message: NewMessage }[] = [];
  // One key twice in one call: the second is answered like a retry of the first.
  const keyed = new Map<string, number>();
  const repeats: { index: number; first: number }[] = [];
  items.forEach(({ request }, index) => {
    try {
      if (!request?.message) throw new AppError('MESSAGE_REQUIRED');
      const scheduledAt = request.scheduledAt ? new Date(request.scheduledAt) : null;
      const m = outgoing(request, request.deviceId, request.message, scheduledAt, null);
      m.ttlSeconds = ttlOf(request.ttlSeconds, 'ttl_seconds');
      m.pinned = request.pinned === true;
      m.requestedSim = requestedSim(request.sim);
      m.replies = repliesOf(request.replies, m.webhookUrl);
      m.idempotency = idempotencyOf(request);
      m.traceparent = traceparentOf(spans[index]!);
      if (m.idempotency) {
        const key = `${m.clientId}\u0000${m.mode}\u0000${m.idempotency.key}`;
        const first = keyed.get(key);
        if (first !== undefined) {
          repeats.push({ index, first });
          return;
        }
        keyed.set(key, index);
      }
      accepted.push({ index, message: m });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      results[index] = { error: err };
    }
  });
  try {
    // A device that is not the client's is refused alone, before anything is stored (one call for the devices not known yet).
    const foreign = await service.devices.foreign(accepted.map(({ message: m }) => m));
    if (foreign.size > 0) {
      for (const { index, message: m } of accepted) {
        if (DeviceOwnership.isForeign(foreign, m.clientId, m.deviceId)) results[index] = { error: new AppError('INVALID_DEVICE_ID') };
      }
      accepted.splice(0, accepted.length, ...accepted.filter(({ index }) => !results[index]));
    }
    if (accepted.length > 0) {
      const outcomes = await store(
        service,
        accepted.map((a) => a.message),
      );
      const placed: PlacedMessage[] = [];
      const taken: { index: number; message: NewMessage }[] = [];
      outcomes.forEach((outcome, k) => {
        const { index, message: m } = accepted[k]!;
        if (outcome instanceof AppError) results[index] = { error: outcome };
        else if (!outcome) taken.push(accepted[k]!);
        else {
          placed.push(outcome);
          results[index] = { row: outcome.row, estimatedDelivery: estimateDelivery(outcome.row, outcome.ahead, averagePacingMs(service)) };
          withSpan(spans[index]!, () =>
            log.debug({ message_id: outcome.row.message_id, device_id: outcome.row.device_id, gathered: items.length }, 'message queued'),
          );
        }
        if (outcome instanceof AppError && outcome.code === 'INTERNAL_ERROR')
          log.error({ err: outcome.cause, device_id: m.deviceId }, 'send refused by the database');
      });
      service.wakeUps.wake(placed);
      // After the commit: a scheduled message is answered once its timer exists.
      await service.scheduledSends?.schedule(placed.map((p) => p.row));
      await replays(service, taken, results);
    }
  } catch (err) {
    for (const span of spans) endSpan(span, err instanceof AppError ? err.code : 'INTERNAL_ERROR');
    throw err;
  }
  for (const { index, first } of repeats) {
    const same = items[index]!.request!.requestHash === items[first]!.request!.requestHash;
    results[index] =
      same && results[first]!.row
        ? { ...results[first]!, replayed: true }
        : same
          ? results[first]!
          : { error: new AppError('IDEMPOTENCY_KEY_REUSED') };
  }
  spans.forEach((span, i) => {
    span.setAttribute('smsgw.send.gathered', items.length);
    const row = results[i]!.row;
    if (row) span.setAttribute('smsgw.message_id', row.message_id);
    endSpan(span, results[i]!.error?.code);
  });
  return results;
}
