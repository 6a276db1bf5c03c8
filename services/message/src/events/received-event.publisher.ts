import { publishTraced, type Nats } from '@smsgw/platform';
import { receivedEvent, type ReceivedRecord, type ReplyTarget } from '../domain/received';

/** Publishes `sms.received` for stored records, as SmsEventPublisher does the sms.* events of messages. */
export class ReceivedEventPublisher {
  constructor(private readonly nats: Nats) {}

  /**
   * Publishes durably with the event id as Nats-Msg-Id; resolves once
   * JetStream has stored it or recognised it as a copy (the same record
   * published again within the stream's duplicate window).
   */
  async publish(row: ReceivedRecord, replyTo?: ReplyTarget): Promise<void> {
    const event = receivedEvent(row, replyTo);
    await publishTraced(
      this.nats.js,
      this.nats.names.event(event.event),
      JSON.stringify(event),
      { msgID: event.event_id },
      { 'smsgw.received_id': row.id, 'smsgw.event_id': event.event_id, ...(replyTo ? { 'smsgw.message_id': replyTo.message_id } : {}) },
    );
  }
}
