import type { SimInfo, Sms, SmsError } from '../protocol';

/** Callbacks through which a driver tells what happened to one SMS. */
export interface DriverEvents {
  onSent(at: Date): void;
  onDelivered(at: Date): void;
  /**
   * `notSent`: the driver is sure nothing of the SMS left the phone (the radio refused it), so the
   * hub may have another phone send it (PROTOCOL.md, `not_sent`). Leave it out when unsure.
   */
  onFailed(at: Date, error: SmsError, notSent?: boolean): void;
}

export type DriverName = 'simulator' | 'termux';

export interface Driver {
  readonly name: DriverName;
  /** False when the driver never calls onDelivered: `sent` is then the last state of an SMS. */
  readonly reportsDelivery: boolean;
  /** True when the hub may make it receive an SMS (`simulate_received`, protocol 3): the simulator only. */
  readonly simulatesReceiving: boolean;
  /** The phone's active SIMs, announced in `agent_hello` (protocol 4); empty when unknown. */
  readonly sims: readonly SimInfo[];
  /** The slot this SMS goes through, when the driver knows it: it goes in the SMS's reports. */
  slotFor(sms: Sms): number | undefined;
  /**
   * Hands one SMS to the phone. Resolves once it has been handed over (onSent or onFailed called);
   * onDelivered may come later.
   */
  send(sms: Sms, events: DriverEvents): Promise<void>;
  /** Whether this SMS will fail before anything leaves the phone (the simulator's failing SIM). */
  failsUnsent?(sms: Sms): boolean;
  /**
   * After a restart of the agent: follows an SMS the phone had sent before it, whose delivery
   * report had not come, and calls onDelivered (or onFailed) when it does. Absent when the driver
   * cannot (it never reports delivery).
   */
  resumeDelivery?(sms: Sms, events: Pick<DriverEvents, 'onDelivered' | 'onFailed'>): void;
  /** Drops callbacks still to come; called once at shutdown. */
  close(): Promise<void>;
}
