import type { SmsErrorCode } from '../protocol';
import type { Driver, DriverName } from './driver';
import { SimulatorDriver, type SimFailure } from './simulator.driver';
import { TermuxDriver } from './termux.driver';

export interface DriverOptions {
  /** Simulator: time between `sent` and `delivered`. */
  deliveryDelayMs?: number;
  /** Simulator: the radio is off. */
  radioOff?: boolean;
  /** Simulator: how many SIMs the phone has (default 1). */
  sims?: number;
  /** Simulator: every SMS is sent, then fails with this cause. */
  networkFailure?: SmsErrorCode;
  /** Simulator: a SIM that fails every send, not sent. */
  simFailure?: SimFailure;
  /** Termux: directories searched for termux-sms-send (default $PATH). */
  searchPath?: string;
}

/** The driver of that name; the termux one fails at once when termux-sms-send is missing. */
export async function createDriver(name: DriverName, options: DriverOptions): Promise<Driver> {
  if (name === 'termux') {
    return TermuxDriver.create({ searchPath: options.searchPath ?? process.env.PATH ?? '' });
  }
  return new SimulatorDriver({
    ...(options.deliveryDelayMs !== undefined ? { deliveryDelayMs: options.deliveryDelayMs } : {}),
    ...(options.radioOff ? { radioOff: true } : {}),
    ...(options.sims !== undefined ? { sims: options.sims } : {}),
    ...(options.networkFailure ? { networkFailure: options.networkFailure } : {}),
    ...(options.simFailure ? { simFailure: options.simFailure } : {}),
  });
}
