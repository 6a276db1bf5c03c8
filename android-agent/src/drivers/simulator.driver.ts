import type { SmsErrorCode } from '../protocol';
import type { Driver, DriverEvents } from './driver';
import type { Sms } from '../protocol';

/** Numbers that end `failed` (PROTOCOL.md §4); the same list holds for test-mode API keys. */
export const MAGIC_NUMBERS: Readonly<Record<string, { code: SmsErrorCode; message: string }>> = {
  '+33600000001': { code: 'INVALID_NUMBER', message: 'simulated: the number does not exist' },
  '+33600000002': { code: 'OUT_OF_NETWORK', message: 'simulated: the phone is out of network' },
  '+33600000003': { code: 'INSUFFICIENT_CREDIT', message: 'simulated: the SIM has no credit left' },
  '+33600000004': { code: 'BLACKLISTED', message: 'simulated: the number is blacklisted' },
};

/** What every send gives with the radio off (`--radio-off`): refused before anything left the phone. */
export const RADIO_OFF_ERROR: { code: SmsErrorCode; message: string } = {
  code: 'OUT_OF_NETWORK',
  message: "simulated: the phone's radio is off; nothing was sent",
};

export const DEFAULT_DELIVERY_DELAY_MS = 300;

export interface SimulatorOptions {
  /** Time between `sent` and `delivered`. */
  deliveryDelayMs?: number;
  /** Every send fails at once with OUT_OF_NETWORK and `not_sent`, as on a phone in airplane mode. */
  radioOff?: boolean;
}

/**
 * Sends nothing: every SMS is sent at once and delivered after a delay, except magic numbers, and
 * every SMS fails unsent with the radio off.
 */
export class SimulatorDriver implements Driver {
  readonly name = 'simulator';
  readonly simulatesReceiving = true;
  readonly reportsDelivery = true;
  private readonly deliveryDelayMs: number;
  private readonly radioOff: boolean;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(options: SimulatorOptions = {}) {
    this.deliveryDelayMs = options.deliveryDelayMs ?? DEFAULT_DELIVERY_DELAY_MS;
    this.radioOff = options.radioOff ?? false;
  }

  async send(sms: Sms, events: DriverEvents): Promise<void> {
    if (this.radioOff) {
      events.onFailed(new Date(), { ...RADIO_OFF_ERROR }, true);
      return;
    }
    // A magic number stands for a failure the network gave: the SMS left the phone, so no not_sent.
    const failure = MAGIC_NUMBERS[sms.to];
    if (failure) {
      events.onFailed(new Date(), { ...failure });
      return;
    }
    events.onSent(new Date());
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      events.onDelivered(new Date());
    }, this.deliveryDelayMs);
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    // A delivery cut off here leaves the entry `sent`, as on a phone that never gets the report.
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
