import type { Inbox } from './inbox';
import type { AgentFrame, ReceivedSms } from './protocol';

/**
 * Sends the inbox's SMS to the hub (protocol 3): all of them after each `hello`, a new one at
 * once, and any still unacknowledged again every `resendMs`, until `received_ack`. The hub and the
 * message service de-duplicate by device and received_id, so a frame sent twice records one SMS.
 */
export class ReceivedRelay {
  /** When each pending entry was last sent on the current socket. */
  private readonly lastSent = new Map<string, number>();

  constructor(
    private readonly inbox: Inbox,
    private readonly resendMs: number,
  ) {}

  /** A new connection said hello: everything pending goes again. */
  sendAll(send: (frame: AgentFrame) => void): void {
    this.lastSent.clear();
    for (const entry of this.inbox.pending()) this.sendOne(entry, send);
  }

  sendOne(entry: ReceivedSms, send: (frame: AgentFrame) => void): void {
    send({ type: 'received', ...entry });
    this.lastSent.set(entry.received_id, Date.now());
  }

  resendDue(send: (frame: AgentFrame) => void): void {
    const now = Date.now();
    for (const entry of this.inbox.pending()) {
      if (now - (this.lastSent.get(entry.received_id) ?? 0) >= this.resendMs) this.sendOne(entry, send);
    }
  }

  /** The hub has recorded it: the entry leaves the disk. */
  async ack(receivedId: string): Promise<void> {
    await this.inbox.ack(receivedId);
    this.lastSent.delete(receivedId);
  }
}
