import type { Logger } from 'pino';
import type { Inbox } from './inbox';
import type { Outbox } from './outbox';
import type { AgentFrame, ReceivedSms, Report, ReportStatus } from './protocol';
import { ReceivedRelay } from './received-relay';

/**
 * What the agent sends until the hub acknowledges it (PROTOCOL.md §3): the outbox's reports until
 * `report_ack`, the inbox's received SMS until `received_ack`. Everything pending goes when a
 * connection says hello, a new one at once, and any still unacknowledged again every `resendMs`.
 */
export class PendingFrames {
  /** When each pending report (`<id> <status>`) was last sent on the current connection. */
  private readonly reportsSent = new Map<string, number>();
  private readonly received: ReceivedRelay;
  /** Sends on the connection that said hello; undefined while there is none. */
  private send: ((frame: AgentFrame) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Ends a `received_retry`'s hold: then the inbox goes again, on the connection of the moment. */
  private holdTimer: NodeJS.Timeout | undefined;

  /** Reports already decided lost in transit (`--sim-drop-reports`), so that each is decided once. */
  private readonly dropped = new Set<string>();

  constructor(
    private readonly outbox: Outbox,
    inbox: Inbox,
    private readonly resendMs: number,
    private readonly logger: Logger,
    /** Simulator: the share of reports lost in transit (0 to 1); the record keeps them. */
    private readonly dropReports = 0,
    private readonly random: () => number = Math.random,
  ) {
    this.received = new ReceivedRelay(inbox, resendMs);
  }

  /** A connection said hello: what earlier connections (or runs) left unacknowledged goes again now. */
  open(send: (frame: AgentFrame) => void): void {
    this.close();
    this.send = send;
    for (const report of this.outbox.pendingReports()) this.sendReport(report);
    this.received.sendAll(send);
    this.timer = setInterval(() => this.resendDue(send), Math.max(1, this.resendMs / 2));
  }

  /** The connection is gone: what waits goes with the next hello. */
  close(): void {
    clearInterval(this.timer);
    this.send = undefined;
    this.reportsSent.clear();
  }

  sendReport(report: Report): void {
    if (!this.send) return;
    const key = reportKey(report.message_id, report.status);
    if (this.dropped.has(key)) return;
    if (this.dropReports > 0 && this.random() < this.dropReports) {
      // A frame lost for good: the hub never sees it and the agent forgets it, as if acknowledged.
      // Only the digest (protocol 7) tells the hub what happened.
      this.dropped.add(key);
      this.logger.info({ message_id: report.message_id, status: report.status }, 'simulated: report lost in transit');
      this.ackReport(report.message_id, report.status);
      return;
    }
    this.send({ type: 'report', ...report });
    this.reportsSent.set(reportKey(report.message_id, report.status), Date.now());
  }

  sendReceived(entry: ReceivedSms): void {
    if (this.send) this.received.sendOne(entry, this.send);
  }

  ackReport(messageId: string, status: ReportStatus): void {
    this.outbox
      .ackReport(messageId, status)
      .then(() => this.reportsSent.delete(reportKey(messageId, status)))
      .catch((error: unknown) => {
        this.logger.error({ err: error, message_id: messageId }, 'could not forget an acknowledged report');
      });
  }

  /** The hub did not store a received SMS (protocol 5): the inbox waits `afterMs`, then goes again. */
  retryReceived(receivedId: string, afterMs: number): void {
    const waitMs = this.received.hold(afterMs);
    this.logger.info({ received_id: receivedId, after_ms: waitMs }, 'the hub asked to send the received SMS later');
    clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => {
      this.holdTimer = undefined;
      if (this.send) this.received.sendAfterHold(this.send);
    }, waitMs);
    this.holdTimer.unref();
  }

  ackReceived(receivedId: string): void {
    this.received.ack(receivedId).catch((error: unknown) => {
      this.logger.error({ err: error, received_id: receivedId }, 'could not forget an acknowledged received SMS');
    });
  }

  private resendDue(send: (frame: AgentFrame) => void): void {
    const now = Date.now();
    for (const report of this.outbox.pendingReports()) {
      const last = this.reportsSent.get(reportKey(report.message_id, report.status)) ?? 0;
      if (now - last >= this.resendMs) this.sendReport(report);
    }
    this.received.resendDue(send);
  }
}

function reportKey(messageId: string, status: string): string {
  return `${messageId} ${status}`;
}
