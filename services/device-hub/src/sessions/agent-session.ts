// One phone's connection, whole: the frames of PROTOCOL.md (hello, sms, ack, report, ping), the
// claim-and-hand loop with its pacing, and the report path. About 300 lines on purpose: the frames
// share the session's state (in-flight SMS, the handed-out set, the socket), and splitting them
// would pass that state around for nothing.
import { randomUUID } from 'node:crypto';
import type { Subscription } from '@nats-io/transport-node';
import type WebSocket from 'ws';
import {
  AGENT_REPORT_STATUSES,
  counter,
  endSpan,
  FAILURE_CODES,
  inTrace,
  startSpanInTrace,
  traceparentOf,
  withSpan,
  type AgentReport,
  type FailureCode,
  type Logger,
  type Nats,
  type PromiseClient,
} from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { DeviceHubConfig } from '../config';
import type { DeviceRow } from '../data/device.repository';
import type { PresenceStore } from '../data/presence.store';
import { pacingDelay } from '../domain/pairing';
import type { ReportPublisher } from '../events/report.publisher';
import { deviceOwnsMessage, HandedMessages, reportsRefused } from '../use-cases/report-ownership.use-case';

export const CLOSE_REVOKED = 4001;

const handedOut = counter('hub.sms_handed_out', 'SMS handed to phones, by whether the phone acknowledged in time');
export const CLOSE_REPLACED = 4002;
export const CLOSE_RESTART = 1012;

export interface SessionDeps {
  messages: PromiseClient<message.MessageServiceClient>;
  nats: Nats;
  reports: ReportPublisher;
  presence: PresenceStore;
  config: Pick<DeviceHubConfig, 'dispatch' | 'pingIntervalMs'>;
  log: Logger;
  publishDeviceEvent(kind: 'device.connected' | 'device.disconnected', device: DeviceRow, reason: string): Promise<void>;
}

interface AgentFrame {
  type?: unknown;
  message_id?: unknown;
  status?: unknown;
  at?: unknown;
  error?: { code?: unknown; message?: unknown };
  traceparent?: unknown;
}

/** The trace context an agent echoed, if it is well formed (else the hub's spans start a trace of their own). */
const echoedTrace = (value: unknown) =>
  typeof value === 'string' && /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(value) ? value : '';

/**
 * One phone's connection: hands it SMS one at a time at the configured pace,
 * relays its acknowledgements and reports to JetStream, and keeps its
 * presence alive while it answers pings.
 */
export class AgentSession {
  readonly connectionId = randomUUID();
  private closed = false;
  private closeReason = 'agent_closed';
  private wakeWaiter?: () => void;
  private ackWaiter?: { messageId: string; resolve: (acked: boolean) => void };
  private wakeSub?: Subscription;
  private pingTimer?: NodeJS.Timeout;
  private missedPongs = 0;
  private loop?: Promise<void>;
  private readonly onClose = new Set<() => void>();
  private readonly log: Logger;
  /** What this connection handed to the phone: its reports need no check at the message service. */
  private readonly handed = new HandedMessages();

  constructor(
    private readonly ws: WebSocket,
    readonly device: DeviceRow,
    private readonly deps: SessionDeps,
  ) {
    this.log = deps.log.child({ device_id: device.device_id, connection_id: this.connectionId });
  }

  get deviceId(): string {
    return this.device.device_id;
  }

  async start(): Promise<void> {
    const { nats, presence, config } = this.deps;
    this.ws.on('message', (data: Buffer) => this.onFrame(data.toString('utf8')));
    this.ws.on('pong', () => {
      this.missedPongs = 0;
      presence.markOnline(this.deviceId, this.connectionId).catch((err: unknown) => this.log.warn({ err }, 'presence refresh failed'));
    });
    this.ws.on('close', () => this.onClosed());
    this.ws.on('error', (err) => this.log.warn({ err }, 'agent socket error'));
    this.send({ type: 'hello', protocol: 1, device_id: this.deviceId, ping_interval_ms: config.pingIntervalMs });
    await presence.markOnline(this.deviceId, this.connectionId);
    this.wakeSub = nats.nc.subscribe(nats.names.wake(this.deviceId), { callback: () => this.wake() });
    this.pingTimer = setInterval(() => this.ping(), config.pingIntervalMs);
    await this.deps.publishDeviceEvent('device.connected', this.device, 'connected');
    this.log.info('agent connected');
    this.loop = this.dispatchLoop();
  }

  /** Closes the connection; the reason ends up in `device.disconnected`. */
  close(code: number, reason: string, frame?: Record<string, unknown>): void {
    if (this.closed) return;
    this.closeReason = reason;
    if (frame) this.send(frame);
    this.ws.close(code, reason);
    // A peer that never answers the close handshake is cut off.
    setTimeout(() => this.ws.terminate(), 2000).unref();
  }

  /** Resolves once the connection is closed and the dispatch loop has ended. */
  async closedAndDrained(): Promise<void> {
    await new Promise<void>((resolve) => (this.closed ? resolve() : this.ws.once('close', () => resolve())));
    await this.loop;
  }

  private ping(): void {
    if (this.missedPongs >= 2) {
      this.closeReason = 'missed_pongs';
      this.ws.terminate();
      return;
    }
    this.missedPongs++;
    this.ws.ping();
  }

  private wake(): void {
    const waiter = this.wakeWaiter;
    this.wakeWaiter = undefined;
    waiter?.();
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onClose.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeWaiter = wakeable ? done : undefined;
      this.onClose.add(done);
    });
  }

  private async dispatchLoop(): Promise<void> {
    const { dispatch } = this.deps.config;
    while (!this.closed) {
      let claimed: message.ClaimNextResponse__Output;
      try {
        claimed = await this.deps.messages.claimNext({ deviceId: this.deviceId, leaseMs: dispatch.leaseMs });
      } catch (err) {
        this.log.warn({ err }, 'claiming the next message failed; retrying');
        await this.sleep(1000 + Math.random() * 1000, false);
        continue;
      }
      const sms = claimed.message;
      if (!sms?.messageId) {
        // Sleep until a wake-up, or until the sweep interval covers a lost one.
        await this.sleep(dispatch.sweepMs * (0.8 + Math.random() * 0.4), true);
        continue;
      }
      if (this.closed) break; // the lease runs out and the message goes back to the queue
      this.handed.add(sms.messageId);
      const acked = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), Math.max(1000, dispatch.leaseMs - 2000));
        this.ackWaiter = {
          messageId: sms.messageId,
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value);
          },
        };
      });
      // The SMS's own trace (its API request's) goes on: to the phone, and back with its ack and reports.
      const span = startSpanInTrace('device-hub deliver', claimed.traceparent, []);
      span.setAttributes({ 'smsgw.message_id': sms.messageId, 'smsgw.device_id': this.deviceId, 'smsgw.attempt': claimed.attempt });
      withSpan(span, () =>
        this.send({
          type: 'sms',
          message_id: sms.messageId,
          to: sms.to,
          text: sms.text,
          priority: sms.priority,
          attempt: claimed.attempt,
          traceparent: traceparentOf(span),
        }),
      );
      const wasAcked = await acked;
      endSpan(span, wasAcked ? undefined : 'NOT_ACKNOWLEDGED');
      handedOut.add(1, { outcome: wasAcked ? 'acknowledged' : 'not_acknowledged' });
      if (!wasAcked) {
        this.log.warn({ message_id: sms.messageId }, 'agent did not acknowledge in time; the lease will return the message to the queue');
      }
      this.ackWaiter = undefined;
      await this.sleep(pacingDelay(dispatch.minIntervalMs, dispatch.maxIntervalMs), false);
    }
  }

  private onFrame(text: string): void {
    let frame: AgentFrame;
    try {
      frame = JSON.parse(text) as AgentFrame;
    } catch {
      this.log.warn('agent sent a frame that is not JSON');
      return;
    }
    if (typeof frame.message_id !== 'string' || !frame.message_id.startsWith('msg_')) return;
    const messageId = frame.message_id;
    if (frame.type === 'ack') {
      // Even a late ack matters: the phone has the message and will send it.
      // It is recorded before the dispatch loop moves on (under the lease), so
      // that a cancel is refused from then on.
      const waiter = this.ackWaiter?.messageId === messageId ? this.ackWaiter : undefined;
      const attributes = { 'smsgw.message_id': messageId, 'smsgw.device_id': this.deviceId };
      void inTrace('device-hub ack', echoedTrace(frame.traceparent), attributes, () => this.accept(messageId)).finally(() =>
        waiter?.resolve(true),
      );
      return;
    }
    if (frame.type === 'report') {
      const status = frame.status;
      if (status === 'accepted' || !AGENT_REPORT_STATUSES.includes(status as never)) return;
      const at =
        typeof frame.at === 'string' && !Number.isNaN(Date.parse(frame.at)) ? new Date(frame.at).toISOString() : new Date().toISOString();
      const report: AgentReport = { message_id: messageId, device_id: this.deviceId, status: status as AgentReport['status'], at };
      if (status === 'failed') {
        const code = FAILURE_CODES.includes(frame.error?.code as never) ? (frame.error!.code as FailureCode) : 'DEVICE_ERROR';
        report.error = { code, message: typeof frame.error?.message === 'string' ? frame.error.message.slice(0, 200) : '' };
      }
      const attributes = { 'smsgw.message_id': messageId, 'smsgw.device_id': this.deviceId, 'smsgw.report.status': report.status };
      void inTrace('device-hub report', echoedTrace(frame.traceparent), attributes, async () => this.relayReport(report));
    }
  }

  /**
   * Stores a phone's report, if the message was handed to this device: a
   * report on any other message (another tenant's, or another phone's) is
   * acknowledged, so that the phone forgets it, but never stored.
   */
  private async relayReport(report: AgentReport): Promise<void> {
    let owned: boolean;
    try {
      owned = this.handed.has(report.message_id) || (await deviceOwnsMessage(this.deps.messages, this.device, report.message_id));
    } catch (err) {
      this.log.warn({ err, message_id: report.message_id }, "checking the report's message failed; the agent will send it again");
      return;
    }
    if (!owned) {
      reportsRefused.add(1, { status: report.status });
      this.log.warn({ message_id: report.message_id, status: report.status }, 'report refused: the message was not handed to this device');
      this.send({ type: 'report_ack', message_id: report.message_id, status: report.status });
      return;
    }
    this.publishReport(report, true);
  }

  /**
   * Records the phone's acknowledgement at the message service at once; when
   * that call fails, through JetStream like a report, so that it is still
   * applied once the message service is back.
   */
  private async accept(messageId: string): Promise<void> {
    const at = new Date().toISOString();
    try {
      const outcome = await this.deps.messages.acceptMessage({ deviceId: this.deviceId, messageId, at });
      if (!outcome.accepted)
        this.log.warn({ message_id: messageId, status: outcome.status }, 'the phone acknowledged a message that had left the queue');
    } catch (err) {
      this.log.warn({ err, message_id: messageId }, 'recording the acknowledgement failed; it goes through JetStream');
      this.publishReport({ message_id: messageId, device_id: this.deviceId, status: 'accepted', at }, false);
    }
  }

  /** Stores the report durably in JetStream, then (for phone reports) tells the phone it may forget it. */
  private publishReport(report: AgentReport, confirm: boolean): void {
    this.deps.reports.publish(report).then(
      () => {
        if (confirm) this.send({ type: 'report_ack', message_id: report.message_id, status: report.status });
      },
      (err: unknown) => this.log.error({ err, message_id: report.message_id }, 'report not stored; the agent will send it again'),
    );
  }

  private send(frame: Record<string, unknown>): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(frame));
  }

  private onClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pingTimer);
    this.wakeSub?.unsubscribe();
    this.ackWaiter?.resolve(false);
    for (const callback of [...this.onClose]) callback();
    this.log.info({ reason: this.closeReason }, 'agent disconnected');
    void this.deps.presence
      .markOffline(this.deviceId, this.connectionId)
      .catch((err: unknown) => this.log.warn({ err }, 'presence release failed'))
      .then(() => this.deps.publishDeviceEvent('device.disconnected', this.device, this.closeReason))
      .catch((err: unknown) => this.log.warn({ err }, 'device.disconnected not published'));
  }
}
