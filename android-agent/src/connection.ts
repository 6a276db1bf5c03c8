// Over 300 lines: HubConnection is one state machine (connecting, hello, pings, reconnect with
// backoff, the hub's `reconnect` frame) whose timers must all be cleared together on each close.
import type { Logger } from 'pino';
import WebSocket from 'ws';
import { nextDelay, STABLE_CONNECTION_MS } from './backoff';
import { buildDigest, DEFAULT_DIGEST_INTERVAL_MS } from './digest';
import { DeviceReplacedError } from './errors';
import type { Inbox } from './inbox';
import type { Outbox } from './outbox';
import {
  DIGEST_PROTOCOL,
  parseHubFrame,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOLS,
  WS_SUBPROTOCOL,
  type AgentFrame,
  type HelloFrame,
  type HubFrame,
  type ReceivedSms,
  type Report,
  type SimInfo,
  type SimulateReceivedFrame,
  type SmsFrame,
} from './protocol';
import { PendingFrames } from './pending-frames';
import type { SendRecord } from './send-record';
import type { PhoneLink } from './phone-link';
import { TlsSessionKeeper } from './tls-session';

/** Where to connect and with which token. */
export interface ConnectionTarget {
  wsUrl: string;
  token: string;
}

export interface HubConnectionOptions {
  target: ConnectionTarget;
  /** Trusted CA certificates (PEM); undefined trusts Node's default store. */
  ca?: string[];
  outbox: Outbox;
  /** Received SMS waiting for `received_ack` (protocol 3). */
  inbox: Inbox;
  /** Announced in `agent_hello`. */
  driver: string;
  /** The phone's active SIMs, announced in `agent_hello` (protocol 4); empty when unknown. */
  sims: readonly SimInfo[];
  /** Protocol 6: telemetry, the log on request, the pushed settings. */
  phone?: PhoneLink;
  /** The hub asked to receive an SMS as if from the network; absent when the driver cannot. */
  onSimulateReceived?(frame: SimulateReceivedFrame): void;
  /** A new SMS is in the outbox and acknowledged: send it. */
  onAccepted(sms: SmsFrame): void;
  onHello?(hello: HelloFrame): void;
  /**
   * The hub refused the token (HTTP 401). Resolves to a new target (after pairing again), or
   * rejects when the agent cannot go on; the rejection is passed to onFatal.
   */
  onUnauthorized(): Promise<ConnectionTarget>;
  /** The connection gave up for good: the agent must stop. */
  onFatal(error: unknown): void;
  logger: Logger;
  /** Source of jitter for the reconnection delays. */
  random?: () => number;
  /** How long a report (or a received SMS) may wait for its ack before it is sent again. */
  reportResendMs?: number;
  /** What the phone did with each SMS: its digest goes to a hub of protocol 7 after hello and every `digestIntervalMs`. */
  record?: SendRecord;
  digestIntervalMs?: number;
  /** Simulator: the share of report frames lost in transit (0 to 1). */
  dropReports?: number;
}

export const REPORT_RESEND_MS = 10_000;
/** Close code of a connection taken over by another one of the same device. */
export const CLOSE_REPLACED = 4002;
const DEFAULT_PING_INTERVAL_MS = 25_000;
// The hub drops a connection after two missed pongs; the agent waits as long for pings (plus a
// margin) before it deems a silent connection dead, as happens when a phone changes network.
const MISSED_PINGS = 2;
const PING_MARGIN_MS = 5_000;
const HANDSHAKE_TIMEOUT_MS = 20_000;
const CLOSE_TIMEOUT_MS = 2_000;

/**
 * The WebSocket link to the hub (PROTOCOL.md §2): connects, reconnects with backoff, writes each
 * offered SMS to the outbox before acknowledging it, and sends reports until the hub acks them.
 */
export class HubConnection {
  private target: ConnectionTarget;
  private readonly logger: Logger;
  private readonly random: () => number;
  private ws: WebSocket | undefined;
  private attempt = 0;
  private stopped = false;
  private pingIntervalMs = DEFAULT_PING_INTERVAL_MS;
  /** Delay asked by the hub in a `reconnect` frame, used instead of the backoff once. */
  private hubDelayMs: number | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private stableTimer: NodeJS.Timeout | undefined;
  private watchdogTimer: NodeJS.Timeout | undefined;
  private digestTimer: NodeJS.Timeout | undefined;
  /** Reports and received SMS, sent until the hub acknowledges them; they flow once `hello` came. */
  private readonly pending: PendingFrames;
  /** The hub's TLS session, offered on each reconnection to the same URL so that the hub resumes it. */
  private readonly tlsSessions = new TlsSessionKeeper();

  constructor(private readonly options: HubConnectionOptions) {
    this.target = options.target;
    this.logger = options.logger;
    this.random = options.random ?? Math.random;
    this.pending = new PendingFrames(
      options.outbox,
      options.inbox,
      options.reportResendMs ?? REPORT_RESEND_MS,
      this.logger,
      options.dropReports ?? 0,
    );
  }

  start(): void {
    this.connect();
  }

  /** Sends a report now if the hub is listening; otherwise it goes with the next `hello`. */
  sendReport(report: Report): void {
    this.pending.sendReport(report);
  }

  /** Sends a received SMS (already in the inbox) now if the hub is listening; else after the next `hello`. */
  sendReceived(entry: ReceivedSms): void {
    this.pending.sendReceived(entry);
  }

  /** Closes the socket (code 1000) and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.digestTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => ws.terminate(), CLOSE_TIMEOUT_MS);
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'agent stopping');
      else ws.terminate();
    });
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    if (this.stopped) return;
    const ws = new WebSocket(this.target.wsUrl, WS_SUBPROTOCOL, {
      headers: { authorization: `Bearer ${this.target.token}` },
      ...(this.options.ca ? { ca: this.options.ca } : {}),
      ...this.tlsSessions.clientOptions(this.target.wsUrl),
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    this.ws = ws;
    let refused = false;

    ws.on('unexpected-response', (_request, response) => {
      refused = response.statusCode === 401;
      this.logger.warn({ status: response.statusCode }, 'the hub refused the connection');
      response.resume();
      // Ends the handshake; ws then emits 'close', where the reconnection is decided.
      ws.terminate();
    });
    ws.on('open', () => {
      this.logger.info({ url: this.target.wsUrl }, 'connected to the hub');
      this.stableTimer = setTimeout(() => {
        this.attempt = 0;
      }, STABLE_CONNECTION_MS);
      this.armWatchdog(ws);
    });
    ws.on('ping', () => this.armWatchdog(ws));
    ws.on('message', (data, isBinary) => {
      if (this.stopped || ws !== this.ws) return;
      this.armWatchdog(ws);
      if (isBinary) {
        this.logger.warn('ignoring a binary frame');
        return;
      }
      this.onText(ws, rawDataToString(data));
    });
    ws.on('error', (error) => {
      this.logger.warn({ reason: error.message }, 'connection error');
    });
    ws.on('close', (code, reason) => this.onClose(ws, code, reason.toString('utf8'), refused));
  }

  private onText(ws: WebSocket, text: string): void {
    const parsed = parseHubFrame(text);
    if (parsed.kind === 'invalid') {
      this.logger.warn({ reason: parsed.reason }, 'ignoring an invalid frame');
      return;
    }
    if (parsed.kind === 'unknown') {
      // Forward compatibility: a newer hub may send types this agent does not know.
      this.logger.debug({ type: parsed.type }, 'ignoring a frame of unknown type');
      return;
    }
    this.onFrame(ws, parsed.frame);
  }

  private onFrame(ws: WebSocket, frame: HubFrame): void {
    switch (frame.type) {
      case 'hello':
        this.onHello(ws, frame);
        return;
      case 'sms':
        void this.onSms(ws, frame);
        return;
      case 'report_ack':
        this.pending.ackReport(frame.message_id, frame.status);
        return;
      case 'received_ack':
        this.pending.ackReceived(frame.received_id);
        return;
      case 'received_retry':
        this.pending.retryReceived(frame.received_id, frame.after_ms);
        return;
      case 'simulate_received':
        if (this.options.onSimulateReceived) this.options.onSimulateReceived(frame);
        else this.logger.warn({ driver: this.options.driver }, 'ignoring simulate_received: only the simulator receives simulated SMS');
        return;
      case 'log_request':
        this.options.phone?.onLogRequest();
        return;
      case 'settings':
        void this.options.phone?.onSettings(frame);
        return;
      case 'reconnect':
        this.logger.info({ after_ms: frame.after_ms }, 'the hub asked to reconnect');
        this.hubDelayMs = frame.after_ms;
        ws.close(1000, 'reconnecting as asked');
        return;
    }
  }

  private onHello(ws: WebSocket, hello: HelloFrame): void {
    this.pingIntervalMs = hello.ping_interval_ms ?? DEFAULT_PING_INTERVAL_MS;
    this.armWatchdog(ws);
    this.logger.info({ device_id: hello.device_id, protocol: hello.protocol }, 'hub said hello');
    if (!SUPPORTED_PROTOCOLS.includes(hello.protocol)) {
      // Carry on: unknown frames and fields are ignored both ways, so a newer hub can still work with us.
      this.logger.warn({ protocol: hello.protocol, supported: PROTOCOL_VERSION }, 'the hub speaks another protocol version');
    }
    this.options.onHello?.(hello);
    // Protocol 3: the hub learns this agent's version and driver (so whether it may simulate); 4: its SIMs.
    this.send(ws, { type: 'agent_hello', protocol: PROTOCOL_VERSION, driver: this.options.driver, sims: [...this.options.sims] });
    this.pending.open((frame) => this.send(ws, frame));
    this.options.phone?.open((frame) => this.send(ws, frame), hello.protocol);
    // Protocol 7: what the phone did, for the hub to repair what a lost frame left wrong.
    if (hello.protocol >= DIGEST_PROTOCOL && this.options.record) {
      this.sendDigest(ws);
      clearInterval(this.digestTimer);
      this.digestTimer = setInterval(() => this.sendDigest(ws), this.options.digestIntervalMs ?? DEFAULT_DIGEST_INTERVAL_MS);
    }
  }

  private sendDigest(ws: WebSocket): void {
    const record = this.options.record;
    if (!record || ws !== this.ws) return;
    // Only what is on disk: an event still being written goes in the next digest.
    void record.flush().then(() => {
      const frames = buildDigest(record.list(), record.coversFrom(), new Date());
      for (const frame of frames) this.send(ws, frame);
      this.logger.debug({ chunks: frames.length }, 'digest sent');
    });
  }

  /** Outbox before ack (PROTOCOL.md §3); an SMS already known is acknowledged, never sent again. */
  private async onSms(ws: WebSocket, sms: SmsFrame): Promise<void> {
    let created: boolean;
    try {
      created = await this.options.outbox.accept(sms);
    } catch (error) {
      // No ack: the lease expires and the hub offers the SMS again.
      this.logger.error({ err: error, message_id: sms.message_id }, 'could not write an SMS to the outbox');
      return;
    }
    this.send(ws, { type: 'ack', message_id: sms.message_id, ...(sms.traceparent ? { traceparent: sms.traceparent } : {}) });
    if (created) {
      this.logger.info({ message_id: sms.message_id, attempt: sms.attempt }, 'SMS accepted');
      this.options.onAccepted(sms);
    } else {
      this.logger.info({ message_id: sms.message_id }, 'SMS offered again: acknowledged, not sent again');
    }
  }

  private onClose(ws: WebSocket, code: number, reason: string, refused: boolean): void {
    if (ws !== this.ws) return;
    this.ws = undefined;
    this.pending.close();
    clearInterval(this.digestTimer);
    this.options.phone?.close();
    clearTimeout(this.stableTimer);
    clearTimeout(this.watchdogTimer);
    if (this.stopped) return;

    if (refused) {
      void this.reauthenticate();
      return;
    }
    if (code === CLOSE_REPLACED) {
      // Reconnecting would take the device back from the other connection, which would do the
      // same: two agents would keep replacing each other.
      this.options.onFatal(new DeviceReplacedError('another connection of this device took over (close code 4002); stopping'));
      return;
    }
    const delay = this.hubDelayMs ?? nextDelay(this.attempt++, this.random);
    this.hubDelayMs = undefined;
    this.logger.info({ code, reason, delay_ms: delay }, 'disconnected from the hub; reconnecting');
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private async reauthenticate(): Promise<void> {
    try {
      this.target = await this.options.onUnauthorized();
    } catch (error) {
      this.options.onFatal(error);
      return;
    }
    this.connect();
  }

  private armWatchdog(ws: WebSocket): void {
    clearTimeout(this.watchdogTimer);
    this.watchdogTimer = setTimeout(
      () => {
        this.logger.warn('no ping from the hub; dropping the connection');
        ws.terminate();
      },
      this.pingIntervalMs * MISSED_PINGS + PING_MARGIN_MS,
    );
  }

  private send(ws: WebSocket, frame: AgentFrame): void {
    // A frame for a socket that has since closed is dropped: acks are asked again by the hub,
    // reports go again after the next hello.
    if (ws !== this.ws || ws.readyState !== WebSocket.OPEN) return;
    ws.send(JSON.stringify(frame));
  }
}

function rawDataToString(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
