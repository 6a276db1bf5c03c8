import { counter, newId, type AgentReceived, type Logger } from '@smsgw/platform';
import type { OptOutRepository, Recipient } from '../data/opt-out.repository';
import type { ReceivedRepository, ReceivedRow } from '../data/received.repository';
import type { ReceivedEventPublisher } from '../events/received-event.publisher';
import { isEnvelope } from '@smsgw/e2e-envelope';
import { matchKeyword } from '../domain/opt-out';
import { RECEIVED_PREFIX, senderOf } from '../domain/received';

const receivedSeen = counter(
  'message.received',
  'Received SMS relayed by the hub and stored (a copy of a stored one counts again), by mode',
);

/** A fresh record id: `rcv_` and a ULID, the scheme of message ids. */
const newReceivedId = () => `${RECEIVED_PREFIX}${newId('msg').slice('msg_'.length)}`;

export interface StoreReceivedDeps {
  received: Pick<ReceivedRepository, 'store' | 'replyTarget'>;
  publisher: Pick<ReceivedEventPublisher, 'publish'>;
  log: Logger;
  /** Absent: keywords change no list (tests of the inbox alone). */
  optOuts?: Pick<OptOutRepository, 'settings'>;
  /** A sender just added by its keyword: its client's messages to it no phone has taken fail. */
  failPending?: (r: Recipient) => Promise<number>;
}

/**
 * Stores an SMS a phone received (or finds its first copy: the phone resends it until the hub
 * acknowledges it), applies its opt-out keyword, and publishes `sms.received` with the same event
 * id for every copy; returns the stored row.
 */
export async function storeReceived(deps: StoreReceivedDeps, received: AgentReceived): Promise<ReceivedRow> {
  const sender = senderOf(received.from, received.sim_number);
  // A keyword (the whole text, the client's lists) adds or removes the sender, with the record's insert:
  // only a number, in E.164 as the sends' numbers are (never a name, nor what a phone wrote unchecked).
  // An encrypted text (protocol 8) is matched on the phone, which sends only the keyword it found.
  const keyword =
    !deps.optOuts || !sender.isNumber
      ? undefined
      : isEnvelope(received.text)
        ? received.keyword
        : matchKeyword(received.text, await deps.optOuts.settings(received.client_id));
  const row = await deps.received.store(
    {
      id: newReceivedId(),
      clientId: received.client_id,
      mode: received.mode,
      deviceId: received.device_id,
      receivedId: received.received_id,
      sim: received.sim ?? null,
      from: sender.from,
      text: received.text,
      receivedAt: new Date(received.received_at),
    },
    keyword,
  );
  if (keyword) deps.log.info({ client_id: row.client_id, mode: row.mode, action: keyword.action }, 'opt-out keyword received');
  // Every copy runs it: one that comes again after a crash still fails them (only while the number is on the list).
  if (keyword?.action === 'add') await deps.failPending?.({ clientId: row.client_id, mode: row.mode, to: row.from_number });
  if (row.client_id !== received.client_id || row.mode !== received.mode) {
    // The same phone id and received id under another client: the first one stays; nothing leaks to this one.
    deps.log.warn(
      { device_id: received.device_id, received_id: received.received_id },
      'received SMS id already stored for another client or mode',
    );
  }
  receivedSeen.add(1, { mode: row.mode });
  // A reply to a message that asked for them also goes to that message's webhook_url.
  await deps.publisher.publish(row, await deps.received.replyTarget(row));
  return row;
}
