import { publishTraced, type Nats, type PublicEvent } from '@smsgw/platform';
import type { HoldRow } from '../data/hold.repository';
import { conversionRate } from '../domain/otp-guard';

/**
 * The public `otp.fraud_suspected` event of a hold: what the owner's endpoints subscribed to it
 * receive (never a message's webhook_url), and what the webhook service's alert e-mail says.
 */
export function fraudSuspectedEvent(hold: HoldRow): PublicEvent {
  return {
    event: 'otp.fraud_suspected',
    event_id: hold.event_id,
    timestamp: hold.held_at.toISOString(),
    data: {
      hold_id: hold.hold_id,
      scope: hold.scope,
      prefix: hold.prefix,
      country: hold.country,
      requests: hold.requests,
      verified: hold.verified,
      conversion_rate: conversionRate(hold.verified, hold.requests),
      window_seconds: hold.window_seconds,
      held_at: hold.held_at.toISOString(),
      held_until: hold.held_until.toISOString(),
    },
    routing: { client_id: hold.client_id, mode: hold.mode },
  };
}

/** Publishes `events.otp.fraud_suspected` to JetStream, one event per message, its id as Nats-Msg-Id. */
export class FraudEventPublisher {
  constructor(private readonly nats: Nats) {}

  async publish(hold: HoldRow): Promise<void> {
    const event = fraudSuspectedEvent(hold);
    await publishTraced(
      this.nats.js,
      this.nats.names.event(event.event),
      JSON.stringify(event),
      { msgID: event.event_id },
      {
        'smsgw.event_id': event.event_id,
        'smsgw.hold_id': hold.hold_id,
      },
    );
  }
}
