import type { JsMsg } from '@nats-io/jetstream';
import { consumeTraced, runDurableConsumer, type AgentReceived, type DurableConsumer, type Logger, type Nats } from '@smsgw/platform';
import type { OptOutRepository, Recipient } from '../data/opt-out.repository';
import type { ReceivedRepository, ReceivedRow } from '../data/received.repository';
import { parseAgentReceived } from '../domain/received';
import { storeReceived } from '../use-cases/store-received.use-case';
import type { ReceivedEventPublisher } from './received-event.publisher';

export const RECEIVED_DURABLE = 'message-received';
/**
 * The SMS the phones received (`agent.received.<device>`, relayed by the hub), each stored and
 * published by `storeReceived`. Every copy of one SMS finds the row of the first and publishes
 * the same event id again, which JetStream drops. Each is acknowledged only once the row and the
 * event are durable: a crash in between means it comes again, and is stored and published once
 * still.
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
  apply(received: AgentReceived): Promise<ReceivedRow> {
    return storeReceived(
      { received: this.repo, publisher: this.publisher, log: this.log, optOuts: this.optOuts, failPending: this.failPending },
      received,
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
