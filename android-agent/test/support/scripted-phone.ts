import type { Driver, DriverEvents } from '../../src/drivers/driver';
import type { SimInfo, Sms, SmsError } from '../../src/protocol';
import type { PhoneEvent } from './protocol-fixtures';

/**
 * The phone of a protocol fixture: a driver that records each SMS handed to it and answers only
 * when the fixture says (sent, delivered, failed). It plays the simulator (`simulate_received`
 * is honoured), with the SIMs the fixture gives (none known by default).
 */
export class ScriptedPhone implements Driver {
  readonly name = 'simulator' as const;
  readonly reportsDelivery = true;
  readonly simulatesReceiving = true;
  readonly handedOver: string[] = [];
  private readonly events = new Map<string, DriverEvents>();

  /** `handedOver`: what the phone was given before a restart of the agent (the phone stayed up). */
  constructor(
    readonly sims: readonly SimInfo[],
    handedOver: readonly string[] = [],
  ) {
    this.handedOver.push(...handedOver);
  }

  slotFor(sms: Sms): number | undefined {
    return sms.sim;
  }

  send(sms: Sms, events: DriverEvents): Promise<void> {
    this.handedOver.push(sms.message_id);
    this.events.set(sms.message_id, events);
    return Promise.resolve();
  }

  /** After a restart of the agent: the phone still reports the delivery of an SMS it sent before. */
  resumeDelivery(sms: Sms, events: Pick<DriverEvents, 'onDelivered' | 'onFailed'>): void {
    this.events.set(sms.message_id, { onSent: () => undefined, ...events });
  }

  /** Plays a fixture's `sent`, `delivered` or `failed` event on an SMS handed over earlier. */
  answer(event: Exclude<PhoneEvent, { event: 'received' }>): void {
    const events = this.events.get(event.message_id);
    if (!events) throw new Error(`the fixture answers for ${event.message_id}, which was never handed to the phone`);
    const at = new Date();
    if (event.event !== 'failed') {
      if (event.event === 'sent') events.onSent(at);
      else events.onDelivered(at);
    } else if (event.cause === 'radio_off') {
      events.onFailed(at, { code: 'OUT_OF_NETWORK', message: 'radio off' }, true);
    } else {
      const error: SmsError = { code: event.cause, message: 'refused by the network' };
      events.onFailed(at, error, false);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
