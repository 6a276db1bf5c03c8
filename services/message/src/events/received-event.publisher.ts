import type { EventBatchPublisher } from '@smsgw/platform';
import { receivedEvent, type ReceivedRecord, type ReplyTarget } from '../domain/received';

/** Publishes `sms.received` for stored records, as SmsEventPublisher does the sms.* events of messages. */
export class ReceivedEventPublisher {
  constructor(private readonly batches: EventBatchPublisher) {}

  /**
   * Publishes durably, with the other events of the moment; resolves once JetStream has stored
   * it. The event id comes from the record, so a record published again is one event to its
   * consumers (the webhook service keeps each event id once).
   */
  async publish(row: ReceivedRecord, replyTo?: ReplyTarget): Promise<void> {
    const event = receivedEvent(row, replyTo);
    await this.batches.publish({
      event,
      attributes: { 'smsgw.received_id': row.id, ...(replyTo ? { 'smsgw.message_id': replyTo.message_id } : {}) },
    });
  }
}
