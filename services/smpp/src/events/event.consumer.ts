import type { JsMsg } from '@nats-io/jetstream';
import { decodeEventBatch, runDurableConsumer, type DurableConsumer, type Logger, type Nats, type PublicEvent } from '@smsgw/platform';
import type { NewPending, PendingRepository } from '../data/pending.repository';
import type { SubmitRepository } from '../data/submit.repository';
import { receiptDeliver, receivedDeliver } from '../domain/deliver';

export const SMPP_EVENTS_DURABLE = 'smpp-event-batches';

function parseEvent(value: unknown): PublicEvent | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const e = value as Partial<PublicEvent>;
  if (typeof e.event !== 'string' || !e.data || typeof e.data !== 'object' || typeof e.routing?.client_id !== 'string') return undefined;
  if (e.routing.mode !== 'live' && e.routing.mode !== 'test') return undefined;
  return e as PublicEvent;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Turns the public events into what waits for SMPP receivers, as the webhook service reads them (a
 * durable consumer of the event batches): the final `sms.delivered` and `sms.failed` of messages
 * submitted over SMPP with registered_delivery become receipts, every `sms.received` a received
 * SMS. They are stored (one row per receipt or received SMS, however often an event comes) before
 * the batch is acknowledged: a crash before means the batch comes again, and finds them stored.
 */
export class SmppEventConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly repos: { submits: Pick<SubmitRepository, 'find'>; pending: Pick<PendingRepository, 'add'> },
    private readonly stored: (clientId: string, mode: string) => void,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      { stream: names.eventBatchesStream, durable: SMPP_EVENTS_DURABLE, filterSubject: names.eventBatches, log: this.log },
      (msg) => this.handle(msg),
    );
  }

  async handle(msg: JsMsg): Promise<void> {
    const raw = decodeEventBatch(msg.data);
    if (!raw) {
      this.log.warn({ subject: msg.subject }, 'malformed event batch dropped');
      msg.term();
      return;
    }
    const events = raw.map(parseEvent).filter((e): e is PublicEvent => e !== undefined);
    const finals = events.filter((e) => e.event === 'sms.delivered' || e.event === 'sms.failed');
    const submits = await this.repos.submits.find(finals.map((e) => str(e.data.message_id)));
    const rows: NewPending[] = [];
    const ended: string[] = [];
    for (const e of events) {
      const { client_id: clientId, mode } = e.routing;
      if (e.event === 'sms.received') {
        const id = str(e.data.id);
        if (!id) continue;
        const pdu = receivedDeliver({ from: str(e.data.from), to: '', text: str(e.data.message) });
        rows.push({ clientId, mode, kind: 'received', dedupeKey: `received:${id}`, pdu });
        continue;
      }
      const submit = submits.get(str(e.data.message_id));
      if (!submit || submit.client_id !== clientId) continue;
      const failed = e.event === 'sms.failed';
      const error = (e.data.error ?? {}) as { code?: unknown };
      const at = new Date(str(failed ? e.data.failed_at : e.data.delivered_at) || e.timestamp);
      ended.push(submit.message_id);
      const pdu = receiptDeliver(submit, { status: failed ? 'failed' : 'delivered', errorCode: str(error.code), at });
      if (pdu) rows.push({ clientId, mode, kind: 'receipt', dedupeKey: `receipt:${submit.message_id}`, pdu });
    }
    const added = await this.repos.pending.add(rows, ended);
    msg.ack();
    for (const { clientId, mode } of added) this.stored(clientId, mode);
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
