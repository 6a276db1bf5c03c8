import { randomBytes, randomUUID } from 'node:crypto';
import {
  Batches,
  endSpan,
  publishBatchTraced,
  startCreateSpan,
  traceparentOf,
  type AgentReport,
  type DeviceDigest,
  type Nats,
  type ReportBatch,
  type Span,
} from '@smsgw/platform';

/** The destination's name on spans: one name for every replica's subject. */
const DESTINATION = 'agent.reports.*';

/**
 * Stores what the phones (and the test-mode simulator) said about their messages in JetStream,
 * the reports of a moment together: one `ReportBatch` message on `agent.reports.<replica>`, so that
 * the message service applies them together too. `publish` resolves once the batch holding the
 * report is stored (the phone may then forget it). A report sent twice is applied once: the
 * message service's state machine makes a second one change nothing. Each report goes on in its
 * own trace (the SMS's: a `create` span whose context it carries).
 */
export class ReportPublisher {
  /** This replica's subject token: each replica's batches are its own. */
  private readonly instance = randomBytes(6).toString('hex');
  private readonly batches = new Batches<string, { report: AgentReport; span: Span }, void>((items) => this.publishBatch(items));

  constructor(
    private readonly nats: Pick<Nats, 'js' | 'names'>,
    /** How long a batch waits for more reports. */
    private readonly windowMs: number,
  ) {}

  async publish(report: AgentReport): Promise<void> {
    // In the active trace (the SMS's, when the phone echoed it): the message service continues it.
    const span = startCreateSpan(DESTINATION, { 'smsgw.message_id': report.message_id, 'smsgw.report.status': report.status });
    try {
      await this.batches.add(`${report.device_id}:${report.message_id}:${report.status}`, { report, span }, this.windowMs);
      endSpan(span);
    } catch (err) {
      endSpan(span, 'NOT_STORED');
      throw err;
    }
  }

  /**
   * Stores one digest frame of a phone (protocol 7) as a batch of its own on the same subject, so
   * that the message service takes it in order with the reports before it. A copy is dropped by
   * JetStream's de-duplication (its id names the phone, the digest and the frame).
   */
  async publishDigest(digest: DeviceDigest): Promise<void> {
    const batch: ReportBatch = { reports: [], digests: [digest] };
    await this.nats.js.publish(this.nats.names.reportBatch(this.instance), JSON.stringify(batch), {
      msgID: `digest:${digest.device_id}:${digest.digest_id}:${digest.chunk}`,
    });
  }

  private async publishBatch(items: ReadonlyMap<string, { report: AgentReport; span: Span }>): Promise<ReadonlyMap<string, void>> {
    const list = [...items.values()];
    const batch: ReportBatch = { reports: list.map(({ report, span }) => ({ ...report, traceparent: traceparentOf(span) })) };
    await publishBatchTraced(
      this.nats.js,
      this.nats.names.reportBatch(this.instance),
      DESTINATION,
      JSON.stringify(batch),
      list.map((i) => i.span),
      { msgID: randomUUID() },
    );
    return new Map();
  }
}
