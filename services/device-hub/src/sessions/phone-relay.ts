// Protocol 6 of a phone's session (PROTOCOL.md): its `telemetry` (stored, counted, and the owner
// warned once per low-battery episode), the `log` it sends when the owner asks (`log_request`), and
// the server-owned settings pushed to it (`settings`, answered `settings_applied`). Only an agent
// that announced protocol 6 or later is sent anything; an older one never sends these frames.
import { counter, type LogSink } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import type { DiagnosticsRepository } from '../data/diagnostics.repository';
import type { TelemetryRepository } from '../data/telemetry.repository';
import type { DeviceLimits } from '../domain/limits';
import { logLinesOf, settingsFrame, type PhoneSettings } from '../domain/phone-settings';
import { batteryLow, batteryRecovered, telemetryOf, type Telemetry } from '../domain/telemetry';
import type { SimRule } from '../domain/sims';

/** The protocol that brings telemetry, logs and settings. */
export const PHONE_PROTOCOL = 6;
/** Telemetry closer together than this is not stored (a phone that repeats itself); its battery is still watched. */
const MIN_TELEMETRY_GAP_MS = 1_000;
/** How long after a log_request its answer is taken. */
const LOG_ANSWER_MS = 2 * 60_000;

const frames = counter('hub.phone_frames', 'Protocol 6 frames phones sent, by type (telemetry, log, settings_applied) and outcome');

export interface PhoneRelayDeps {
  telemetry: Pick<TelemetryRepository, 'record'>;
  diagnostics: Pick<
    DiagnosticsRepository,
    'logReceived' | 'settingsSent' | 'settingsApplied' | 'openBatteryEpisode' | 'closeBatteryEpisode'
  >;
  simRules: { of(clientId: string): Promise<SimRule> };
  /** Publishes `device.battery_low` (opt-in webhook kind; the owner's e-mail follows it). */
  publishBatteryLow(device: DeviceRow, telemetry: Telemetry, at: Date): Promise<void>;
  clock: () => number;
}

export class PhoneRelay {
  /** The phone's last telemetry on this connection (what the metrics count). */
  latest?: Telemetry;
  private lastStoredMs = 0;
  /** Whether a low-battery episode is open, as far as this connection knows (undefined: not known yet). */
  private lowEpisode?: boolean;
  /** The version of the settings last pushed on this connection. */
  private pushed?: string;
  /** When the log was asked for on this connection: a `log` frame is stored only as its answer (no flood of writes). */
  private logAskedAt?: number;

  constructor(
    private readonly device: DeviceRow,
    private readonly deps: PhoneRelayDeps,
    private readonly log: LogSink,
    private readonly send: (frame: Record<string, unknown>) => void,
    /** The protocol the agent announced in agent_hello (2 when it sent none). */
    private readonly protocol: () => number,
  ) {}

  get speaks6(): boolean {
    return this.protocol() >= PHONE_PROTOCOL;
  }

  /** Handles the frame if it is one of protocol 6's agent frames; false for any other. */
  handles(frame: Record<string, unknown>): boolean {
    switch (frame.type) {
      case 'telemetry':
        void this.onTelemetry(frame);
        return true;
      case 'log':
        void this.onLog(frame);
        return true;
      case 'settings_applied':
        void this.onApplied(frame);
        return true;
      default:
        return false;
    }
  }

  /** Asks the phone for its log; false when its agent is older than protocol 6. */
  requestLog(): boolean {
    if (!this.speaks6) {
      this.log.warn({ protocol: this.protocol() }, 'log_request not sent: the agent is older than protocol 6');
      return false;
    }
    this.logAskedAt = this.deps.clock();
    this.send({ type: 'log_request' });
    return true;
  }

  /**
   * Pushes the settings the server owns when they differ from those last pushed on this connection
   * (at connect, after a change of the limits, at the periodic reload that sees a new SIM rule).
   */
  async pushSettings(limits: DeviceLimits): Promise<void> {
    if (!this.speaks6) return;
    try {
      const rule = await this.deps.simRules.of(this.device.client_id);
      const settings: PhoneSettings = { limits, simRule: rule };
      const frame = settingsFrame(settings);
      if (frame.version === this.pushed) return;
      this.pushed = frame.version;
      this.send(frame);
      await this.deps.diagnostics.settingsSent(this.device.device_id, frame.version, new Date(this.deps.clock()));
    } catch (err) {
      this.log.warn({ err }, 'settings not pushed to the phone');
    }
  }

  private async onTelemetry(frame: Record<string, unknown>): Promise<void> {
    const now = this.deps.clock();
    const t = telemetryOf(frame);
    this.latest = t;
    if (now - this.lastStoredMs < MIN_TELEMETRY_GAP_MS) {
      frames.add(1, { type: 'telemetry', outcome: 'too_soon' });
    } else {
      this.lastStoredMs = now;
      try {
        await this.deps.telemetry.record(this.device.device_id, t, now);
        frames.add(1, { type: 'telemetry', outcome: 'stored' });
      } catch (err) {
        frames.add(1, { type: 'telemetry', outcome: 'store_failed' });
        this.log.warn({ err }, 'telemetry not stored');
      }
    }
    try {
      await this.watchBattery(t, new Date(now));
    } catch (err) {
      // The episode stays as it was: the next sample tries again.
      this.lowEpisode = undefined;
      this.log.warn({ err }, 'the low-battery warning not decided');
    }
  }

  /** Opens a low-battery episode (and warns, once) or closes it; the database decides between replicas. */
  private async watchBattery(t: Telemetry, at: Date): Promise<void> {
    const { diagnostics } = this.deps;
    if (batteryLow(t)) {
      if (this.lowEpisode) return;
      this.lowEpisode = true;
      if (await diagnostics.openBatteryEpisode(this.device.device_id, at)) {
        this.log.info({ battery: t.battery }, 'battery low and not charging: the owner is warned');
        await this.deps.publishBatteryLow(this.device, t, at);
      }
    } else if (batteryRecovered(t) && this.lowEpisode !== false) {
      this.lowEpisode = false;
      await diagnostics.closeBatteryEpisode(this.device.device_id);
    }
  }

  private async onLog(frame: Record<string, unknown>): Promise<void> {
    if (this.logAskedAt === undefined || this.deps.clock() - this.logAskedAt > LOG_ANSWER_MS) {
      frames.add(1, { type: 'log', outcome: 'not_asked' });
      return;
    }
    this.logAskedAt = undefined;
    const lines = logLinesOf(frame.lines);
    try {
      await this.deps.diagnostics.logReceived(this.device.device_id, lines, new Date(this.deps.clock()));
      frames.add(1, { type: 'log', outcome: 'stored' });
      this.log.info({ lines: lines.length }, "the phone's log stored");
    } catch (err) {
      frames.add(1, { type: 'log', outcome: 'store_failed' });
      this.log.warn({ err }, "the phone's log not stored");
    }
  }

  private async onApplied(frame: Record<string, unknown>): Promise<void> {
    const version = typeof frame.version === 'string' ? frame.version.slice(0, 64) : '';
    // Only the answer to what was pushed on this connection is stored (no flood of writes).
    if (!version || version !== this.pushed) {
      frames.add(1, { type: 'settings_applied', outcome: 'not_pushed' });
      return;
    }
    try {
      await this.deps.diagnostics.settingsApplied(this.device.device_id, version, new Date(this.deps.clock()));
      frames.add(1, { type: 'settings_applied', outcome: 'stored' });
    } catch (err) {
      frames.add(1, { type: 'settings_applied', outcome: 'store_failed' });
      this.log.warn({ err }, 'settings_applied not stored');
    }
  }
}
