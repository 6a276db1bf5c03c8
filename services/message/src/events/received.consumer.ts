import type { JsMsg } from '@nats-io/jetstream';
import {
  consumeTraced,
  counter,
  newId,
  runDurableConsumer,
  type AgentReceived,
  type DurableConsumer,
  type Logger,
  type Nats,
} from '@smsgw/platform';
import type { OptOutRepository, Recipient } from '../data/opt-out.repository';
import type { ReceivedRepository, ReceivedRow } from '../data/received.repository';
import { matchKeyword } from '../domain/opt-out';
import { parseAgentReceived, RECEIVED_PREFIX, senderOf } from '../domain/received';
import type { ReceivedEventPublisher } from './received-event.publisher';

export const RECEIVED_DURABLE = 'message-received';
const receivedSeen = counter(
  'message.received',
  'Received SMS relayed by the hub and stored (a copy of a stored one counts again), by mode',
);

/** A fresh record id: `rcv_` and a ULID, the scheme of message ids. */
const newReceivedId = () => `${RECEIVED_PREFIX}${newId('msg').slice('msg_'.length)}`;

/**
 * Stores the SMS the phones received (`agent.received.<device>`, relayed by
 * the hub) and publishes `sms.received` for each. Every copy of one SMS (the
 * phone resends it until the hub acknowledges it) finds the row of the first
 * and publishes the same event id again, which JetStream drops. Each is
 * acknowledged only once the row and the event are durable: a crash in
 * between means it comes again, and is stored and published once still.
 */
export class ReceivedConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly repo: ReceivedRepository,
    private readonly publisher: ReceivedEventPublisher,
    private readonly log: Logger,
    /** Absent: keywords change no list (tests of the inbox alone). */
    private readonly optOuts?: OptOutRepository,
    /** A sender just added by its keyword: its client's messages to it no phone has taken fail. */
    private readonly failPending?: (r: Recipient) => Promise<number>,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      { stream: names.reportsStream, durable: RECEIVED_DURABLE, filterSubject: names.agentReceiveds, log: this.log },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    // One that cannot be read is dropped (term), never allowed to stop the loop.
    const received = parseAgentReceived(msg.data);
    if (!received) {
      this.log.warn({ subject: msg.subject }, 'malformed received SMS dropped');
      msg.term();
      return;
    }
    try {
      const attributes = { 'smsgw.device_id': received.device_id, 'smsgw.mode': received.mode };
      await consumeTraced(msg, attributes, () => this.apply(received));
      msg.ack();
    } catch (err) {
      this.log.error(
        { err, device_id: received.device_id, received_id: received.received_id },
        'storing a received SMS failed; it will be retried',
      );
      msg.nak(2000);
    }
  }

  /** Stores the SMS (or finds its first copy) and publishes its event; returns the stored row. */
  async apply(received: AgentReceived): Promise<ReceivedRow> {
    const sender = senderOf(received.from, received.sim_number);
    // A keyword (the whole text, the client's lists) adds or removes the sender, with the record's insert:
    // only a number, in E.164 as the sends' numbers are (never a name, nor what a phone wrote unchecked).
    const keyword =
      this.optOuts && sender.isNumber ? matchKeyword(received.text, await this.optOuts.settings(received.client_id)) : undefined;
    const row = await this.repo.store(
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
    if (keyword) this.log.info({ client_id: row.client_id, mode: row.mode, action: keyword.action }, 'opt-out keyword received');
    // Every copy runs it: one that comes again after a crash still fails them (only while the number is on the list).
    if (keyword?.action === 'add') await this.failPending?.({ clientId: row.client_id, mode: row.mode, to: row.from_number });
    if (row.client_id !== received.client_id || row.mode !== received.mode) {
      // The same phone id and received id under another client: the first one stays; nothing leaks to this one.
      this.log.warn(
        { device_id: received.device_id, received_id: received.received_id },
        'received SMS id already stored for another client or mode',
      );
    }
    receivedSeen.add(1, { mode: row.mode });
    // A reply to a message that asked for them also goes to that message's webhook_url.
    await this.publisher.publish(row, await this.repo.replyTarget(row));
    return row;
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
