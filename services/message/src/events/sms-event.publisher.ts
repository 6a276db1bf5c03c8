import {
  deterministicId,
  type EventBatchPublisher,
  type OutgoingEvent,
  type PublicEvent,
  type PublicEventKind,
  type Span,
} from '@smsgw/platform';
import type { EventFields } from '../domain/message-row';

const KIND_OF = { sent: 'sms.sent', delivered: 'sms.delivered', failed: 'sms.failed' } as const;

/** The public event for a message that has just reached `sent`, `delivered` or `failed`. */
export function smsEvent(row: EventFields): PublicEvent | undefined {
  if (row.status !== 'sent' && row.status !== 'delivered' && row.status !== 'failed') return undefined;
  const kind: PublicEventKind = KIND_OF[row.status];
  const at = (row.status === 'sent' ? row.sent_at : row.status === 'delivered' ? row.delivered_at : row.failed_at) ?? new Date();
  // The SIM it went through; null when unknown (the phone's default).
  const data: Record<string, unknown> = { message_id: row.message_id, status: row.status, to: row.to_number, sim: row.sim || null };
  if (row.status === 'sent') data.sent_at = at.toISOString();
  if (row.status === 'delivered') {
    data.sent_at = row.sent_at?.toISOString();
    data.delivered_at = at.toISOString();
  }
  if (row.status === 'failed') {
    data.failed_at = at.toISOString();
    data.error = { code: row.error_code, message: row.error_message };
  }
  if (row.batch_id) data.batch_id = row.batch_id;
  data.metadata = row.metadata ?? {};
  return {
    event: kind,
    // The same transition always gets the same id, so a re-publication after
    // a crash is recognised by JetStream's de-duplication and by receivers.
    event_id: deterministicId('evt', at.getTime(), `${row.message_id}:${row.status}`),
    timestamp: at.toISOString(),
    data,
    routing: { client_id: row.client_id, mode: row.mode, ...(row.webhook_url ? { webhook_url: row.webhook_url } : {}) },
  };
}

/**
 * Publishes the public events of messages, many in one JetStream message (`EventBatchPublisher`):
 * `publishRows` those of one piece of work (a batch of reports) under an id made from it,
 * `publish` one message's with the others published at the same moment.
 */
export class SmsEventPublisher {
  constructor(private readonly batches: EventBatchPublisher) {}

  /** Publishes durably; resolves once JetStream has stored (or de-duplicated) it. */
  async publish(row: EventFields): Promise<void> {
    const event = smsEvent(row);
    if (!event) return;
    await this.batches.publish({ event, attributes: { 'smsgw.message_id': row.message_id } });
  }

  /**
   * Publishes the events of `rows` in one message whose `Nats-Msg-Id` is `workId` (the same work
   * done again publishes nothing twice); each event goes on in the trace of its `parent` span.
   */
  async publishRows(rows: readonly { row: EventFields; parent?: Span }[], workId: string): Promise<void> {
    const events: OutgoingEvent[] = [];
    for (const { row, parent } of rows) {
      const event = smsEvent(row);
      if (event) events.push({ event, attributes: { 'smsgw.message_id': row.message_id }, parent });
    }
    await this.batches.publishAll(events, workId);
  }
}
