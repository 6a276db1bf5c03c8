import type { Inbox } from './inbox';
import type { AgentFrame, ReceivedSms } from './protocol';

/** The longest wait a hub's `received_retry` may ask for: a bad value never holds the inbox back for long. */
export const MAX_RECEIVED_HOLD_MS = 3600_000;

/**
 * Sends the inbox's SMS to the hub (protocol 3): all of them after each `hello`, a new one at
 * once, and any still unacknowledged again every `resendMs`, until `received_ack`. The hub and the
 * message service de-duplicate by device and received_id, so a frame sent twice records one SMS.
 * A `received_retry` (protocol 5: the phone or its account is past its budget on the hub) holds
 * every received SMS back until its `after_ms` has passed: none is sent meanwhile, then all go.
 */
export class ReceivedRelay {
  /** When each pending entry was last sent on the current socket. */
  private readonly lastSent = new Map<string, number>();
  /** Nothing is sent before this time (ms since the epoch). */
  private heldUntil = 0;

  constructor(
    private readonly inbox: Inbox,
    private readonly resendMs: number,
  ) {}

  /** Whether a `received_retry` holds the inbox back now. */
  get held(): boolean {
    return Date.now() < this.heldUntil;
  }

  /** A new connection said hello: everything pending goes again (once no hold holds it back). */
  sendAll(send: (frame: AgentFrame) => void): void {
    this.lastSent.clear();
    if (this.held) return;
    for (const entry of this.inbox.pending()) this.sendOne(entry, send);
  }

  sendOne(entry: ReceivedSms, send: (frame: AgentFrame) => void): void {
    if (this.held) return;
    send({ type: 'received', ...entry });
    this.lastSent.set(entry.received_id, Date.now());
  }

  resendDue(send: (frame: AgentFrame) => void): void {
    if (this.held) return;
    const now = Date.now();
    for (const entry of this.inbox.pending()) {
      if (now - (this.lastSent.get(entry.received_id) ?? 0) >= this.resendMs) this.sendOne(entry, send);
    }
  }

  /** The hub asked to wait: holds every received SMS back for `afterMs` (at most an hour); returns the wait. */
  hold(afterMs: number): number {
    const waitMs = Math.min(Math.max(0, afterMs), MAX_RECEIVED_HOLD_MS);
    this.heldUntil = Math.max(this.heldUntil, Date.now() + waitMs);
    return this.heldUntil - Date.now();
  }

  /** The hold has ended: what was not sent since goes now (the resend timer may have sent some at its very end). */
  sendAfterHold(send: (frame: AgentFrame) => void): void {
    if (this.held) return;
    const endedAt = this.heldUntil;
    for (const entry of this.inbox.pending()) {
      if ((this.lastSent.get(entry.received_id) ?? 0) < endedAt) this.sendOne(entry, send);
    }
  }

  /** The hub has recorded it: the entry leaves the disk. */
  async ack(receivedId: string): Promise<void> {
    await this.inbox.ack(receivedId);
    this.lastSent.delete(receivedId);
  }
}
