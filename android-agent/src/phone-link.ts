// Protocol 6 on the agent's side (PROTOCOL.md): telemetry at each hello, every few minutes and on
// a significant change; the recent log when the hub asks (`log_request`), redacted and bounded;
// the server-owned settings the hub pushes (`settings`), kept and acknowledged (`settings_applied`).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { writeFileDurably } from './durable-file';
import type { LogRing } from './log-ring';
import type { AgentFrame, SettingsFrame } from './protocol';
import { significantChange, TELEMETRY_INTERVAL_MS, TELEMETRY_SAMPLE_MS, type Telemetry } from './telemetry';

/** The hub version from which telemetry, logs and settings travel. */
export const PHONE_PROTOCOL = 6;
/** A `log` frame carries at most this many bytes of lines (the newest kept). */
export const LOG_FRAME_MAX_BYTES = 64 * 1024;

export interface PhoneLinkOptions {
  /** The phone's state now. */
  telemetry(): Telemetry;
  ring: LogRing;
  logger: Logger;
  /** Where the applied settings are kept (settings.json in the device's folder). */
  dir: string;
  intervalMs?: number;
  sampleMs?: number;
}

/** The newest lines that fit in `maxBytes`, oldest first. */
export function boundedLines(lines: readonly string[], maxBytes = LOG_FRAME_MAX_BYTES): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    bytes += Buffer.byteLength(lines[i]!) + 4;
    if (bytes > maxBytes) break;
    kept.unshift(lines[i]!);
  }
  return kept;
}

export class PhoneLink {
  private send?: (frame: AgentFrame) => void;
  private timer?: NodeJS.Timeout;
  private lastSent?: Telemetry;
  private lastSentAt = 0;

  constructor(private readonly options: PhoneLinkOptions) {}

  /** After the hub's hello: from protocol 6 on, telemetry goes now and then as it changes. */
  open(send: (frame: AgentFrame) => void, hubProtocol: number): void {
    this.close();
    if (hubProtocol < PHONE_PROTOCOL) return;
    this.send = send;
    this.lastSent = undefined;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.options.sampleMs ?? TELEMETRY_SAMPLE_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.send = undefined;
  }

  /** Sends the telemetry when it changed significantly, or the interval has passed. */
  sample(now = Date.now()): void {
    if (!this.send) return;
    const next = this.options.telemetry();
    if (!significantChange(this.lastSent, next) && now - this.lastSentAt < (this.options.intervalMs ?? TELEMETRY_INTERVAL_MS)) return;
    this.lastSent = next;
    this.lastSentAt = now;
    this.send({ type: 'telemetry', ...next });
  }

  onLogRequest(): void {
    this.options.logger.info('the hub asked for the log');
    this.send?.({ type: 'log', lines: boundedLines(this.options.ring.snapshot()) });
  }

  /** Keeps the settings (on disk, so that they hold across a restart) and says what was applied. */
  async onSettings(frame: SettingsFrame): Promise<void> {
    const { type: _type, ...settings } = frame;
    try {
      await fs.mkdir(this.options.dir, { recursive: true });
      await writeFileDurably(path.join(this.options.dir, 'settings.json'), `${JSON.stringify(settings)}\n`);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'the settings could not be written; not acknowledged');
      return;
    }
    this.options.logger.info({ version: frame.version }, 'settings applied');
    this.send?.({ type: 'settings_applied', version: frame.version, applied: Object.keys(settings).filter((k) => k !== 'version') });
  }
}
