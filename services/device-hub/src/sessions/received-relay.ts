// Protocol 3 of a phone's session (PROTOCOL.md): its `agent_hello` (the agent's protocol and
// driver, and from protocol 4 its SIMs), the SMS it received (`received`, answered `received_ack` once stored in JetStream,
// or from protocol 5 `received_retry` past its budgets), and the hub's `simulate_received` orders to simulator agents.
import { isEnvelope } from '@smsgw/e2e-envelope';
import { counter, type AgentReceived, type LogSink } from '@smsgw/platform';
import type { DeviceRow } from '../data/device-row';
import { simsOfRow } from '../data/device-row';
import type { FrameBudgetStore } from '../data/frame-budget.store';
import { MAX_RECEIVED_TEXT, receivedWeight } from '../domain/frame-budgets';
import { simNumberOf, simsOf, type SimInfo } from '../domain/sims';
import type { ReceivedPublisher } from '../events/received.publisher';
import { framesRefused } from './frame-budget';

export const AGENT_DRIVERS = ['simulator', 'android', 'termux'] as const;
export type AgentDriver = (typeof AGENT_DRIVERS)[number];

/** What a protocol 3 agent says of itself right after the hub's hello. */
export interface AgentHello {
  protocol: number;
  driver: AgentDriver | 'unknown';
  /** Protocol 4: its active SIMs by slot (bad entries left out); empty: unknown (protocol 3). */
  sims: SimInfo[];
}

/** An SMS to make a simulator phone receive (SimulateReceived, live). */
export interface SimulateOrder {
  from: string;
  text: string;
  /** 1 to 8; absent: the phone's first SIM. */
  sim?: number;
}

const relayed = counter(
  'hub.sms_received',
  'SMS phones received, by outcome (stored, refused as unreadable, deferred past a budget, store failed)',
);

const RECEIVED_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_FROM = 32;
/** Spread over a second, so that phones deferred by one window do not all come back at once. */
const RETRY_JITTER_MS = 1000;

/** Protocol 8: an encrypted received text may be longer than its plain text (the frame's 128 KiB bound it). */
const MAX_RECEIVED_ENVELOPE = 120_000;

/** Protocol 8: the keyword the phone matched on an encrypted text, if the frame carries a well-formed one. */
function phoneKeyword(value: unknown): Pick<AgentReceived, 'keyword'> {
  const k = value as { action?: unknown; keyword?: unknown } | null | undefined;
  if (!k || (k.action !== 'add' && k.action !== 'remove') || typeof k.keyword !== 'string') return {};
  if (k.keyword.length < 1 || k.keyword.length > 32) return {};
  return { keyword: { action: k.action, keyword: k.keyword } };
}

/** The AgentReceived a `received` frame makes, or the reason it cannot be read. */
export function receivedOf(
  frame: Record<string, unknown>,
  device: Pick<DeviceRow, 'device_id' | 'client_id'>,
  nowMs: number,
): AgentReceived | { unreadable: string } {
  const { received_id: id, from, text, sim, received_at: at } = frame;
  const encrypted = typeof text === 'string' && isEnvelope(text);
  if (typeof id !== 'string' || !RECEIVED_ID.test(id)) return { unreadable: 'received_id' };
  if (typeof from !== 'string' || from.length < 1 || from.length > MAX_FROM) return { unreadable: 'from' };
  if (typeof text !== 'string' || text.length > (encrypted ? MAX_RECEIVED_ENVELOPE : MAX_RECEIVED_TEXT)) return { unreadable: 'text' };
  if (sim !== undefined && sim !== null && !(Number.isInteger(sim) && (sim as number) >= 1 && (sim as number) <= 8)) {
    return { unreadable: 'sim' };
  }
  const receivedAt = typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? new Date(at) : new Date(nowMs);
  return {
    received_id: id,
    device_id: device.device_id,
    client_id: device.client_id,
    mode: 'live',
    from,
    text,
    ...(typeof sim === 'number' ? { sim } : {}),
    received_at: receivedAt.toISOString(),
    ...(encrypted ? phoneKeyword(frame.keyword) : {}),
  };
}

/**
 * The protocol 3 frames of one phone's connection. A session whose agent sent no `agent_hello` is
 * protocol 2: it is never sent `simulate_received`.
 */
export class ReceivedRelay {
  private hello?: AgentHello;

  constructor(
    private readonly device: DeviceRow,
    /** Without `budgets`, no budget applies (tests of the relay alone). */
    private readonly deps: { received: ReceivedPublisher; clock: () => number; budgets?: FrameBudgetStore },
    private readonly log: LogSink,
    private readonly send: (frame: Record<string, unknown>) => void,
  ) {}

  /** What the agent said of itself; undefined for a protocol 1 or 2 agent. */
  get agent(): AgentHello | undefined {
    return this.hello;
  }

  /** Handles the frame if it is one of protocol 3's; false for any other. */
  handles(frame: Record<string, unknown>): boolean {
    if (frame.type === 'agent_hello') {
      const protocol = Number.isInteger(frame.protocol) ? (frame.protocol as number) : 3;
      const driver = AGENT_DRIVERS.includes(frame.driver as never) ? (frame.driver as AgentDriver) : 'unknown';
      const sims = protocol >= 4 ? simsOf(frame.sims) : [];
      this.hello = { protocol, driver, sims };
      this.log.info({ protocol, driver, sims: sims.length }, 'agent introduced itself');
      return true;
    }
    if (frame.type === 'received') {
      void this.relay(frame);
      return true;
    }
    return false;
  }

  /**
   * Stores the SMS in JetStream, then tells the phone it may forget it. A frame that cannot be
   * read is acknowledged too (else the phone would send it forever) but dropped; a failed store
   * is not acknowledged: the phone sends the SMS again at its next connection. Past the phone's or
   * its client's budget (or when the budgets cannot be read), the SMS is not stored and the phone
   * is told when to send it again (`received_retry`); an agent older than protocol 5 ignores that
   * and sends it again 10 s later, or after its next connection, as it always did.
   */
  private async relay(frame: Record<string, unknown>): Promise<void> {
    const read = receivedOf(frame, this.device, this.deps.clock());
    if ('unreadable' in read) {
      relayed.add(1, { outcome: 'unreadable' });
      // Its own id echoed as sent (the phone matches on it); without one, there is nothing to answer.
      const id = typeof frame.received_id === 'string' ? frame.received_id : undefined;
      this.log.warn({ received_id: id?.slice(0, 100), field: read.unreadable }, 'received SMS dropped: the frame cannot be read');
      if (id !== undefined) this.send({ type: 'received_ack', received_id: id });
      return;
    }
    // The SIM's own number tells the phone's country, in which the message service reads a national sender.
    const simNumber = simNumberOf(this.hello?.sims.length ? this.hello.sims : simsOfRow(this.device), read.sim);
    const received: AgentReceived = simNumber ? { ...read, sim_number: simNumber } : read;
    if (!(await this.withinBudget(received))) return;
    try {
      await this.deps.received.publish(received);
    } catch (err) {
      relayed.add(1, { outcome: 'store_failed' });
      this.log.error({ err, received_id: received.received_id }, 'received SMS not stored; the agent will send it again');
      return;
    }
    relayed.add(1, { outcome: 'stored' });
    this.send({ type: 'received_ack', received_id: received.received_id });
  }

  /** Counts the SMS's parts on the budgets; false (the phone told to retry) when they have no room. */
  private async withinBudget(received: AgentReceived): Promise<boolean> {
    const budgets = this.deps.budgets;
    if (!budgets) return true;
    let retryAfterMs: number;
    let by: string;
    try {
      const verdict = await budgets.take('received', this.device, receivedWeight(received.text));
      if (verdict.allowed) return true;
      retryAfterMs = verdict.retryAfterMs;
      by = verdict.by ?? 'device';
    } catch (err) {
      this.log.warn({ err, received_id: received.received_id }, 'received SMS deferred: its budgets cannot be read (Redis)');
      retryAfterMs = 10_000;
      by = 'unknown';
    }
    relayed.add(1, { outcome: 'deferred' });
    framesRefused.add(1, { frame: 'received', budget: by });
    const afterMs = Math.ceil(retryAfterMs + Math.random() * RETRY_JITTER_MS);
    this.log.debug({ received_id: received.received_id, budget: by, after_ms: afterMs }, 'received SMS deferred past the budget');
    this.send({ type: 'received_retry', received_id: received.received_id, after_ms: afterMs });
    return false;
  }

  /** Sends the order to the phone if its agent runs the simulator driver (protocol 3 and later). */
  simulate(order: SimulateOrder): boolean {
    if (!this.hello || this.hello.protocol < 3 || this.hello.driver !== 'simulator') {
      this.log.warn({ agent: this.hello ?? 'protocol 2' }, 'simulate_received not sent: the agent is not a protocol 3 simulator');
      return false;
    }
    this.send({ type: 'simulate_received', from: order.from, text: order.text, ...(order.sim ? { sim: order.sim } : {}) });
    return true;
  }
}
