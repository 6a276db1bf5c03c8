// One phone's connection, whole: the frames of PROTOCOL.md (hello, sms, ack, report, ping), the
// claim-and-hand loop, and the report path; they share the session's state (in-flight SMS, the
// handed-out set, the socket). The pace is the DispatchPacer's, the reading of frames
// agent-frames', protocol 3 (agent_hello, received SMS, simulate_received) the ReceivedRelay's;
// protocol 4's SIMs are read from agent_hello before the first claim, and each SMS's SIM chosen here.
import { randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import {
  counter,
  currentTraceparent,
  endSpan,
  inTrace,
  startSpanInTrace,
  traceparentOf,
  untraced,
  withSpan,
  BoundLogger,
  type Logger,
  type PromiseClient,
} from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { DeviceHubConfig } from '../config';
import { limitsOf, type DeviceRow } from '../data/device-row';
import type { PresenceStore } from '../data/presence.store';
import type { UsageStore } from '../data/usage.store';
import type { ReceivedPublisher } from '../events/received.publisher';
import type { ReportPublisher } from '../events/report.publisher';
import { echoedTrace, isMessageId, reportOf, type AgentFrame } from './agent-frames';
import { DIGEST_PROTOCOL, DigestRelay } from './digest-relay';
import { DispatchPacer } from './dispatch-pacer';
import { FrameBudget, type FrameBudgetDeps } from './frame-budget';
import { FrameWriter, type CorkableSocket } from './frame-writer';
import { PhoneRelay, type PhoneRelayDeps } from './phone-relay';
import { ReceivedRelay } from './received-relay';
import { ReportRelay } from './report-relay';
import { SessionHealth, type SessionHealthDeps } from './session-health';
import { canCarry, notDecryptable } from './encrypted-gate';
import { SessionSims, type SessionSimsDeps } from './session-sims';
import { HandedMessages } from './handed-messages';
import {
  ackDeadlineMs,
  holdWaitMs,
  IDLE_AT_CONNECT,
  idleWaitMs,
  jittered,
  MAX_MISSED_PONGS,
  probeWaitMs,
  retryWaitMs,
} from '../domain/dispatch-timing';
import type { MessageCalls } from './message-calls';

export const CLOSE_REVOKED = 4001;

const handedOut = counter('hub.sms_handed_out', 'SMS handed to phones, by whether the phone acknowledged in time');
export const CLOSE_REPLACED = 4002;
export const CLOSE_RESTART = 1012;
/** The protocol the hub speaks (PROTOCOL.md): 2 adds `expires_at` and `not_sent`, 3 received SMS, 4 SIMs, 5 `received_retry`, 6 telemetry, logs and settings, 7 `digest`, 8 encrypted texts. */
export const PROTOCOL_VERSION = 8;
/** How long the first claim waits for the agent's first frame (its agent_hello, if any: protocol 3 and later). */
const HELLO_WAIT_MS = 1000;

export interface SessionDeps extends SessionSimsDeps, FrameBudgetDeps, SessionHealthDeps, Omit<PhoneRelayDeps, 'clock' | 'simRules'> {
  messages: PromiseClient<message.MessageServiceClient>;
  /** Claims and acknowledgements, gathered with the other phones' of the moment. */
  calls: Pick<MessageCalls, 'claim' | 'accept'>;
  reports: ReportPublisher;
  received: ReceivedPublisher;
  presence: PresenceStore;
  usage: Pick<UsageStore, 'record' | 'sentSince' | 'lastSim' | 'setLastSim'>;
  config: Pick<DeviceHubConfig, 'dispatch' | 'pingIntervalMs'>;
  log: Logger;
  clock: () => number;
  publishDeviceEvent(kind: 'device.connected' | 'device.disconnected', device: DeviceRow, reason: string): Promise<void>;
  /** The device as stored now (its limits at a reload order); undefined once removed. */
  loadDevice(deviceId: string): Promise<DeviceRow | undefined>;
  /** Whether another phone of the device's client, not removed, is online now. */
  otherPhoneOnline(device: DeviceRow): Promise<boolean>;
}

/**
 * One phone's connection: hands it SMS one at a time at the configured pace,
 * relays its acknowledgements and reports to JetStream, and keeps its
 * presence alive while it answers pings.
 */
export class AgentSession {
  readonly connectionId = randomUUID();
  private closed = false;
  private closeReason = 'agent_closed';
  private wakeWaiter?: { on: 'work' | 'reload'; done: () => void };
  /** New work announced while a claim was in flight: the claim may have missed it, so the wait after it is skipped. */
  private workWhileClaiming = false;
  private ackWaiter?: { messageId: string; resolve: (acked: boolean) => void };
  private pingTimer?: NodeJS.Timeout;
  private missedPongs = 0;
  /**
   * Claims in a row that found the queue empty: the idle wait grows with them. It starts at the
   * longest: a phone that finds its queue empty on connecting is subscribed to its wake-ups
   * already, and a fleet coming back after a restart must not sweep the queue every few seconds
   * while the rest of it reconnects. A wake-up or new work sets it back to 0.
   */
  private emptyClaims = IDLE_AT_CONNECT;
  private loop?: Promise<void>;
  /** Set once the dispatch loop has ended, for good. */
  private loopEnded = false;
  /** The registry's callback, run once the connection is closed and the dispatch loop has ended. */
  private ended?: () => void;
  /** Ends the current sleep of the dispatch loop (it sleeps one at a time); the close ends it. */
  private endSleep?: () => void;
  /** The connection's log lines carry the device and connection ids (no pino child per phone: see BoundLogger). */
  private readonly log: BoundLogger;
  /** What this connection handed to the phone: its reports need no check at the message service. */
  private readonly handed = new HandedMessages();
  private readonly pacer: DispatchPacer;
  private readonly relay: ReportRelay;
  /** Protocol 3: what the agent said of itself, its received SMS, the simulate_received orders. */
  readonly inbox: ReceivedRelay;
  /** Protocol 4: the phone's SIMs, known before the first claim, and the SIM of each SMS. */
  private readonly sims: SessionSims;
  /** Its SIMs' health: the results of its reports, their quarantines and probes. */
  private readonly health: SessionHealth;
  /** Protocol 6: telemetry, the log asked for, the settings pushed. */
  readonly phone: PhoneRelay;
  /** The budgets on its ack and report frames (received SMS: the ReceivedRelay's). */
  private readonly budget: FrameBudget;
  /** Protocol 7: the phone's digests, to the message service. */
  private readonly digests: DigestRelay;
  /** Writes its frames, the answers to its reports and received SMS a little later, together. */
  private readonly frames: FrameWriter;
  /** Whether the agent has sent a frame yet (its first is its agent_hello, from protocol 3 on). */
  private heardFrom = false;
  /** Ends the first claim's wait for the agent's first frame. */
  private introduce?: () => void;

  constructor(
    private readonly ws: WebSocket,
    readonly device: DeviceRow,
    private readonly deps: SessionDeps,
    /** The socket under `ws`. */
    socket: CorkableSocket,
  ) {
    this.log = new BoundLogger(deps.log, { device_id: device.device_id, connection_id: this.connectionId });
    this.frames = new FrameWriter(ws, socket);
    this.relay = new ReportRelay(device, this.handed, deps, this.log, (frame) => this.send(frame));
    this.inbox = new ReceivedRelay(device, deps, this.log, (frame) => this.send(frame));
    this.sims = new SessionSims(device, deps, this.log);
    this.health = new SessionHealth(device, deps, this.log);
    this.phone = new PhoneRelay(
      device,
      deps,
      this.log,
      (frame) => this.send(frame),
      () => this.inbox.agent?.protocol ?? 2,
    );
    this.budget = new FrameBudget(device, deps, this.log, () => this.ackWaiter?.messageId);
    this.digests = new DigestRelay(device.device_id, deps.reports, this.log, deps.clock);
    this.pacer = new DispatchPacer(device.device_id, limitsOf(device), {
      usage: deps.usage,
      defaults: deps.config.dispatch,
      clock: deps.clock,
    });
  }

  get deviceId(): string {
    return this.device.device_id;
  }

  /** Greets the phone and starts its dispatch loop; a failure closes the connection (never rejects). */
  async start(): Promise<void> {
    const { presence, config } = this.deps;
    this.ws.on('message', (data: Buffer) => this.onFrame(data.toString('utf8')));
    this.ws.on('pong', () => {
      this.missedPongs = 0;
      if (!this.closed) presence.refresh(this.deviceId, this.device.client_id, this.connectionId);
    });
    this.ws.on('close', () => this.onClosed());
    this.ws.on('error', (err) => this.log.warn({ err }, 'agent socket error'));
    try {
      // Written with the other phones connecting meanwhile; once `hello` is sent, the device reads online.
      await presence.markOnline(this.deviceId, this.device.client_id, this.connectionId);
      // A phone gone meanwhile is not greeted: its loop ends at once, and the registry forgets it.
      if (!this.closed) {
        this.send({ type: 'hello', protocol: PROTOCOL_VERSION, device_id: this.deviceId, ping_interval_ms: config.pingIntervalMs });
        this.pingTimer = setInterval(() => this.ping(), config.pingIntervalMs);
        await this.deps.publishDeviceEvent('device.connected', this.device, 'connected');
        this.log.info('agent connected');
      }
    } catch (err) {
      // No dispatch loop: the connection ends here, and its close ends the session.
      this.log.error({ err }, 'agent session failed to start');
      this.loopEnded = true;
      this.ws.terminate();
      return;
    }
    this.loop = this.dispatchLoop();
  }

  /** Writes this phone's presence again (each pong, and when Redis comes back); nothing once closed. */
  async refreshPresence(): Promise<void> {
    if (this.closed) return;
    await this.deps.presence.markOnline(this.deviceId, this.device.client_id, this.connectionId);
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

  /**
   * Runs `callback` once the connection is closed and the dispatch loop has ended (the registry
   * forgets the session then). A callback rather than a promise: this is held for every phone.
   */
  whenEnded(callback: () => void): void {
    this.ended = callback;
  }

  /** Resolves once the connection is closed and the dispatch loop has ended. */
  async closedAndDrained(): Promise<void> {
    await new Promise<void>((resolve) => (this.closed ? resolve() : this.ws.once('close', () => resolve())));
    await this.loop;
  }

  private ping(): void {
    if (this.missedPongs >= MAX_MISSED_PONGS) {
      this.closeReason = 'missed_pongs';
      this.ws.terminate();
      return;
    }
    this.missedPongs++;
    this.ws.ping();
  }

  /**
   * New work (wake-ups) ends a wait for work; a reload of the limits ends any wait, also for room.
   * True when it ended a wait: the phone claims now.
   */
  wake(cause: 'work' | 'reload'): boolean {
    if (cause === 'work') this.emptyClaims = 0;
    const waiter = this.wakeWaiter;
    if (!waiter && cause === 'work') this.workWhileClaiming = true;
    if (!waiter || (waiter.on === 'reload' && cause === 'work')) return false;
    this.wakeWaiter = undefined;
    waiter.done();
    return true;
  }

  /** Takes the device's limits as stored now (the registry's periodic reload); true when they were taken. */
  applyLimits(device: DeviceRow): boolean {
    if (this.closed || device.device_id !== this.deviceId) return false;
    this.pacer.reload(limitsOf(device));
    this.health.applySettings(device);
    void this.phone.pushSettings(limitsOf(device));
    return true;
  }

  /**
   * Reads the device's limits again (a SetDeviceLimits order, or when the periodic reload missed
   * it) and checks its room at once; at an order, its SIMs' health too (a SIM released by hand).
   */
  async reloadLimits(withHealth = true): Promise<void> {
    try {
      const device = await this.deps.loadDevice(this.deviceId);
      if (device) {
        this.pacer.reload(limitsOf(device));
        this.health.applySettings(device);
        void this.phone.pushSettings(limitsOf(device));
      }
      if (withHealth) await this.health.load(this.sims.slots);
      this.log.debug({ limits: this.pacer.current }, 'limits reloaded');
    } catch (err) {
      this.log.warn({ err }, 'reloading the limits failed; the old ones stay');
    }
    this.wake('reload');
  }

  private sleep(ms: number, wakeOn?: 'work' | 'reload'): Promise<void> {
    // Once closed, nothing ends a sleep: the loop ends now (a stop does not wait out a pause).
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.endSleep === done) this.endSleep = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeWaiter = wakeOn ? { on: wakeOn, done } : undefined;
      this.endSleep = done;
    });
  }

  /**
   * The SIM slots with room (empty for a phone with fewer than 2 SIMs: any message) when the phone
   * may take an SMS now; undefined once it had no room and slept (until room comes, a reload, or a
   * re-check).
   */
  private async roomNow(): Promise<number[] | undefined> {
    if (this.pacer.stale()) await this.reloadLimits(false); // a lost reload order is made up here
    const { sweepMs } = this.deps.config.dispatch;
    const { waitMs, simsWithRoom } = await this.pacer.waitMs(sweepMs, this.log);
    if (waitMs > 0) {
      await this.sleep(waitMs, 'reload');
      return undefined;
    }
    // Quarantined SIMs take nothing (but their probe); a phone with none left claims nothing.
    const usable = this.health.usable(simsWithRoom);
    if (usable) return usable;
    if (this.health.allBlocked()) await this.health.releaseIfDue();
    await this.sleep(probeWaitMs(sweepMs, this.health.msUntilProbe()), 'reload');
    return undefined;
  }

  /**
   * The phone's SIMs for this connection: what its agent_hello said (protocol 4), else unknown.
   * The agent sends agent_hello before any other frame: the first frame, or a short wait, tells.
   */
  private async learnSims(): Promise<void> {
    if (!this.heardFrom && !this.closed) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.introduce?.(), HELLO_WAIT_MS);
        this.introduce = () => {
          clearTimeout(timer);
          this.introduce = undefined;
          resolve();
        };
      });
    }
    await this.sims.learn(this.inbox.agent?.sims ?? []);
    this.pacer.setSims(this.sims.slots);
    await this.health.load(this.sims.slots);
  }

  /** The dispatch loop; one that fails closes the connection (the phone comes back to a new one). */
  private async dispatchLoop(): Promise<void> {
    const { dispatch } = this.deps.config;
    try {
      await this.learnSims();
      void this.phone.pushSettings(this.pacer.current);
      while (!this.closed) {
        // A phone without room claims nothing: its client's other phones take the fleet's messages.
        const simsWithRoom = await this.roomNow();
        if (!simsWithRoom) continue;
        const holdMs = await this.sims.holdMs(simsWithRoom, (slot) => this.pacer.pauseLeftMs(slot));
        if (holdMs > 0) {
          await this.sleep(holdWaitMs(holdMs), 'reload');
          continue;
        }
        if (this.closed) break;
        let claimed: message.ClaimNextResponse__Output;
        try {
          const request = { deviceId: this.deviceId, clientId: this.device.client_id, leaseMs: dispatch.leaseMs, simsWithRoom };
          this.workWhileClaiming = false;
          claimed = await untraced(() => this.deps.calls.claim(request));
        } catch (err) {
          this.log.warn({ err }, 'claiming the next message failed; retrying');
          await this.sleep(retryWaitMs());
          continue;
        }
        const sms = claimed.message;
        if (!sms?.messageId) {
          // Sleep until a wake-up, or until the sweep covers a lost one (the idle back-off).
          const idleMs = idleWaitMs(dispatch, this.emptyClaims++);
          // A wake-up that came while the claim was answered found no wait to end: claim again now.
          if (this.workWhileClaiming) continue;
          await this.sleep(jittered(idleMs), 'work');
          continue;
        }
        this.emptyClaims = 0;
        if (this.closed) break; // the lease runs out and the message goes back to the queue
        if (!canCarry(sms.text, this.inbox.agent?.protocol)) {
          this.handed.add(sms.messageId);
          await this.relay.relay(notDecryptable(sms.messageId, this.deviceId, this.deps.clock()), false);
          continue;
        }
        const sim = await this.sims.choose(sms.messageId, sms.requestedSim, simsWithRoom, this.health.probeSlot(simsWithRoom));
        this.health.handed(sim, sms.messageId);
        const handedAt = this.deps.clock();
        await this.hand(sms, claimed, sim);
        await this.sleep(this.pacer.pauseAfter(sim, handedAt));
      }
    } catch (err) {
      this.log.error({ err }, 'the dispatch loop failed; closing the connection');
      this.close(1011, 'internal_error');
    }
    this.loopEnded = true;
    this.endIfDone();
  }

  /**
   * Hands the claimed SMS to the phone through `sim` (0: its default SIM) and waits for its `ack`,
   * at most until shortly before the lease ends.
   */
  private async hand(sms: message.Message__Output, claimed: message.ClaimNextResponse__Output, sim: number): Promise<void> {
    const { leaseMs } = this.deps.config.dispatch;
    this.handed.add(sms.messageId);
    const acked = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ackDeadlineMs(leaseMs));
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
    span.setAttributes({
      'smsgw.message_id': sms.messageId,
      'smsgw.device_id': this.deviceId,
      'smsgw.attempt': claimed.attempt,
      'smsgw.sim': sim,
    });
    withSpan(span, () =>
      this.send({
        type: 'sms',
        message_id: sms.messageId,
        to: sms.to,
        text: sms.text,
        priority: sms.priority,
        attempt: claimed.attempt,
        ...(sms.expiresAt ? { expires_at: sms.expiresAt } : {}),
        ...(sim > 0 ? { sim } : {}),
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
  }

  private onFrame(text: string): void {
    let frame: AgentFrame;
    try {
      frame = JSON.parse(text) as AgentFrame;
    } catch {
      this.log.warn('agent sent a frame that is not JSON');
      return;
    }
    this.heardFrom = true;
    this.introduce?.();
    if (!this.budget.admits(frame)) return;
    if (typeof frame !== 'object' || frame === null || this.inbox.handles(frame as Record<string, unknown>)) return;
    if (frame.type === 'digest') {
      // Only from an agent that said it speaks protocol 7: an older one never sends it.
      if ((this.inbox.agent?.protocol ?? 0) >= DIGEST_PROTOCOL) this.digests.relay(frame as Record<string, unknown>);
      return;
    }
    if (this.phone.handles(frame as Record<string, unknown>)) return;
    if (!isMessageId(frame.message_id)) return;
    const messageId = frame.message_id;
    if (frame.type === 'ack') {
      // Even a late ack matters: the phone has the message and will send it. It is recorded before
      // the dispatch loop moves on (under the lease), so that a cancel is refused from then on.
      const waiter = this.ackWaiter?.messageId === messageId ? this.ackWaiter : undefined;
      const attributes = { 'smsgw.message_id': messageId, 'smsgw.device_id': this.deviceId };
      // The phone has it: it counts against its limits (a message of another phone does not),
      // before the dispatch loop checks its room again.
      const sim = this.sims.of(messageId);
      const counted = this.handed.has(messageId)
        ? this.pacer
            .acknowledged(messageId, sim)
            .catch((err: unknown) => this.log.warn({ err, message_id: messageId }, 'usage not recorded'))
        : undefined;
      const accepted = inTrace('device-hub ack', echoedTrace(frame.traceparent), attributes, () =>
        this.relay.accept(messageId, sim, currentTraceparent()),
      );
      void Promise.all([accepted, counted]).finally(() => waiter?.resolve(true));
      return;
    }
    if (frame.type === 'report') {
      const report = reportOf(frame, messageId, this.deviceId, this.deps.clock());
      if (!report) return;
      // The SIM's health counts what this connection handed (a report of another is checked at the message service first).
      if (this.handed.has(messageId)) this.health.report(report, this.sims.of(messageId));
      const attributes = { 'smsgw.message_id': messageId, 'smsgw.device_id': this.deviceId, 'smsgw.report.status': report.status };
      void inTrace('device-hub report', echoedTrace(frame.traceparent), attributes, async () => this.relay.relay(report));
    }
  }

  private send(frame: Record<string, unknown>): void {
    this.frames.send(frame);
  }

  private onClosed(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.pingTimer);
    this.ackWaiter?.resolve(false);
    this.introduce?.();
    this.endSleep?.();
    this.log.info({ reason: this.closeReason }, 'agent disconnected');
    void this.deps.presence
      .markOffline(this.deviceId, this.device.client_id, this.connectionId)
      .catch((err: unknown) => this.log.warn({ err }, 'presence release failed'))
      .then(() => this.deps.publishDeviceEvent('device.disconnected', this.device, this.closeReason))
      .catch((err: unknown) => this.log.warn({ err }, 'device.disconnected not published'));
    this.endIfDone();
  }

  private endIfDone(): void {
    if (!this.closed || !this.loopEnded) return;
    const ended = this.ended;
    this.ended = undefined;
    ended?.();
  }
}
