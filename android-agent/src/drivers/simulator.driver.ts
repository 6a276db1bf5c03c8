import { existsSync } from 'node:fs';
import type { SimInfo, Sms, SmsErrorCode } from '../protocol';
import { absentSimError, simulatedSims } from '../sims';
import type { Driver, DriverEvents } from './driver';

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

/** The causes a failing SIM (`--sim-fail-slot`) gives, as Android says them (the hub's SIM health reads the words). */
export const SIM_FAIL_ERRORS = {
  generic: { code: 'DEVICE_ERROR', message: 'simulated: the SIM could not send the SMS (generic failure); nothing was sent' },
  limit: { code: 'DEVICE_ERROR', message: "simulated: Android's limit of SMS per period was reached; nothing was sent" },
  no_service: { code: 'OUT_OF_NETWORK', message: 'simulated: the SIM has no mobile service; nothing was sent' },
  radio_off: { code: 'OUT_OF_NETWORK', message: "simulated: the SIM's radio is off; nothing was sent" },
} as const satisfies Record<string, { code: SmsErrorCode; message: string }>;
export type SimFailCause = keyof typeof SIM_FAIL_ERRORS;

/** A SIM that fails every send (`--sim-fail-slot`), while `whileFile` exists when given (a test removes it: the SIM recovers). */
export interface SimFailure {
  slot: number;
  cause: SimFailCause;
  whileFile?: string;
}

export interface SimulatorOptions {
  /** Time between `sent` and `delivered`. */
  deliveryDelayMs?: number;
  /** Every send fails at once with OUT_OF_NETWORK and `not_sent`, as on a phone in airplane mode. */
  radioOff?: boolean;
  /** How many SIMs the phone has (slots 1..n; default 1). */
  sims?: number;
  /**
   * Every SMS leaves the phone (`sent`), then the network reports it failed with this cause, as a
   * SIM out of credit or a carrier that refuses the number does: another phone may still get it
   * through (the OTP delivery fallback). No `not_sent`: something left the phone.
   */
  networkFailure?: SmsErrorCode;
  /** Every SMS through this SIM fails at once, not sent, with its cause. */
  simFailure?: SimFailure;
}

/**
 * Sends nothing: every SMS is sent at once and delivered after a delay, except magic numbers, and
 * every SMS fails unsent with the radio off or when it asks for a SIM the phone does not have.
 */
export class SimulatorDriver implements Driver {
  readonly name = 'simulator';
  readonly simulatesReceiving = true;
  readonly reportsDelivery = true;
  readonly sims: readonly SimInfo[];
  private readonly deliveryDelayMs: number;
  private readonly radioOff: boolean;
  private readonly networkFailure: SmsErrorCode | undefined;
  private readonly simFailure: SimFailure | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(options: SimulatorOptions = {}) {
    this.deliveryDelayMs = options.deliveryDelayMs ?? DEFAULT_DELIVERY_DELAY_MS;
    this.radioOff = options.radioOff ?? false;
    this.networkFailure = options.networkFailure;
    this.simFailure = options.simFailure;
    this.sims = simulatedSims(options.sims ?? 1);
  }

  /** The slot asked, else the default SIM (slot 1); nothing for a slot the phone does not have. */
  slotFor(sms: Sms): number | undefined {
    const slot = sms.sim ?? 1;
    return this.sims.some((sim) => sim.slot === slot) ? slot : undefined;
  }

  /** Whether this SMS's SIM fails now (`--sim-fail-slot`): it fails unsent. */
  failsUnsent(sms: Sms): boolean {
    const failure = this.simFailure;
    if (!failure || (sms.sim ?? 1) !== failure.slot) return false;
    return failure.whileFile === undefined || existsSync(failure.whileFile);
  }

  async send(sms: Sms, events: DriverEvents): Promise<void> {
    // The send loop refuses such an SMS before it gets here; a direct caller gets the same answer.
    const absent = absentSimError(sms.sim, this.sims);
    if (absent) {
      events.onFailed(new Date(), absent, true);
      return;
    }
    if (this.radioOff) {
      events.onFailed(new Date(), { ...RADIO_OFF_ERROR }, true);
      return;
    }
    if (this.failsUnsent(sms)) {
      events.onFailed(new Date(), { ...SIM_FAIL_ERRORS[this.simFailure!.cause] }, true);
      return;
    }
    // A magic number stands for a failure the network gave: the SMS left the phone, so no not_sent.
    const failure = MAGIC_NUMBERS[sms.to];
    if (failure) {
      events.onFailed(new Date(), { ...failure });
      return;
    }
    events.onSent(new Date());
    if (this.networkFailure) {
      events.onFailed(new Date(), { code: this.networkFailure, message: `simulated: the network refused it (${this.networkFailure})` });
      return;
    }
    this.deliverLater(events);
  }

  /** The pretend network's report of an SMS sent before a restart comes its delay after the restart. */
  resumeDelivery(_sms: Sms, events: Pick<DriverEvents, 'onDelivered'>): void {
    this.deliverLater(events);
  }

  private deliverLater(events: Pick<DriverEvents, 'onDelivered'>): void {
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
