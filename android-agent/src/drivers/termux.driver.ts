import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { TermuxNotInstalledError } from '../errors';
import type { SimInfo, Sms, SmsError } from '../protocol';
import type { Driver, DriverEvents } from './driver';

export const TERMUX_SMS_SEND = 'termux-sms-send';

export interface TermuxOptions {
  /** Directories to look for termux-sms-send in, as in $PATH. */
  searchPath: string;
  /** How long termux-sms-send may run before the SMS is reported failed. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

// termux-sms-send passes the recipient unquoted to `am`, and splits it on commas into several
// recipients: anything but a plain number could send to someone else.
const PHONE_NUMBER = /^\+?[0-9]{3,20}$/;

/**
 * Sends through Termux:API. `sent` means handed to Android; Termux gives no delivery callback, so
 * onDelivered is never called. Termux:API does not list the SIMs: they are unknown (`sims: []`),
 * and an SMS that asks for a slot is handed to `termux-sms-send -s <slot - 1>` as it is.
 */
export class TermuxDriver implements Driver {
  readonly name = 'termux';
  readonly simulatesReceiving = false;
  readonly reportsDelivery = false;
  readonly sims: readonly SimInfo[] = [];

  private constructor(
    private readonly binary: string,
    private readonly timeoutMs: number,
  ) {}

  /** Fails fast when termux-sms-send is missing, before the agent accepts any SMS. */
  static async create(options: TermuxOptions): Promise<TermuxDriver> {
    const binary = await findExecutable(TERMUX_SMS_SEND, options.searchPath);
    if (!binary) {
      throw new TermuxNotInstalledError(
        `${TERMUX_SMS_SEND} not found in PATH: install the Termux:API app (from F-Droid, like Termux), ` +
          'run `pkg install termux-api` in Termux, and grant it the SMS permission',
      );
    }
    return new TermuxDriver(binary, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  /** The slot asked; the default SIM's slot is not known. */
  slotFor(sms: Sms): number | undefined {
    return sms.sim;
  }

  async send(sms: Sms, events: DriverEvents): Promise<void> {
    if (!PHONE_NUMBER.test(sms.to)) {
      events.onFailed(new Date(), { code: 'INVALID_NUMBER', message: 'not a phone number termux-sms-send can take' });
      return;
    }
    const error = await this.run(sms);
    if (error) {
      events.onFailed(new Date(), error);
    } else {
      events.onSent(new Date());
    }
  }

  async close(): Promise<void> {}

  private run(sms: Sms): Promise<SmsError | undefined> {
    return new Promise((resolve) => {
      // The text goes on stdin rather than as an argument: termux-sms-send would pass an argument
      // through `echo`, whose escapes (`\c`, `\n`) and options (`-n`) would alter the message.
      // -s takes the SIM's index from 0.
      const args = [...(sms.sim !== undefined ? ['-s', String(sms.sim - 1)] : []), '-n', sms.to];
      const child = execFile(this.binary, args, { timeout: this.timeoutMs, maxBuffer: 64 * 1024 }, (error, _stdout, stderr) => {
        if (!error) {
          resolve(undefined);
          return;
        }
        const detail = String(stderr).trim().slice(0, 200) || error.message;
        resolve({ code: 'DEVICE_ERROR', message: `${TERMUX_SMS_SEND} failed: ${detail}` });
      });
      child.stdin?.on('error', () => {
        // The binary exited without reading its input; the exit callback reports it.
      });
      child.stdin?.end(sms.text);
    });
  }
}

async function findExecutable(name: string, searchPath: string): Promise<string | undefined> {
  for (const directory of searchPath.split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.join(directory, name);
    try {
      await fs.access(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
