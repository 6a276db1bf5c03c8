import type { JsMsg } from '@nats-io/jetstream';
import {
  decodeDigests,
  decodeReportBatch,
  endSpan,
  runDurableConsumer,
  startItemConsumerSpan,
  untraced,
  type DurableConsumer,
  type Logger,
  type Nats,
} from '@smsgw/platform';
import { parseDigest, parseReport } from '../domain/report';
import { applyReports, type ReportToApply } from '../use-cases/apply-reports.use-case';
import { reconcileDigest, type ReconcileDeps } from '../use-cases/reconcile-digest.use-case';

export const REPORT_BATCHES_DURABLE = 'message-report-batches';

/**
 * The phones' reports as the hubs store them, a batch a message (`agent.reports.<hub>`): read,
 * applied together (`applyReports`), acknowledged once their writes and their events are durable.
 * A batch that cannot be read is dropped (term); a report in it that cannot be used is left out.
 * Batches are taken one at a time, in the stream's order.
 */
export class ReportBatchConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly deps: ReconcileDeps,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      { stream: names.reportBatchesStream, durable: REPORT_BATCHES_DURABLE, filterSubject: names.reportBatches, log: this.log },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    const raw = decodeReportBatch(msg.data);
    if (!raw) {
      this.log.warn({ subject: msg.subject }, 'malformed report batch dropped');
      msg.term();
      return;
    }
    const items: ReportToApply[] = [];
    for (const value of raw) {
      const report = parseReport(value);
      if (!report) {
        this.log.warn({ subject: msg.subject }, 'malformed agent report dropped');
        continue;
      }
      // Each report goes on in its own trace (the SMS's), whatever batch it came in.
      const span = startItemConsumerSpan('agent.reports.*', report.traceparent, {
        'smsgw.message_id': report.message_id,
        'smsgw.report.status': report.status,
      });
      items.push({ report, span });
    }
    const workId = msg.headers?.get('Nats-Msg-Id') || `seq-${msg.seq}`;
    try {
      // The hub gives each batch a Nats-Msg-Id of its own; the stream's sequence stands in without one.
      // The batch's statements make no spans of their own: each report's are in its SMS's trace.
      if (items.length > 0) await untraced(() => applyReports(this.deps, items, workId));
      // A phone's digest (protocol 7) comes as a batch of its own.
      for (const value of decodeDigests(msg.data)) {
        const digest = parseDigest(value);
        if (digest) await untraced(() => reconcileDigest(this.deps, digest, `${workId}-repairs`));
        else this.log.warn({ subject: msg.subject }, 'malformed digest dropped');
      }
      items.forEach((i) => endSpan(i.span));
      msg.ack();
    } catch (err) {
      items.forEach((i) => endSpan(i.span, 'NOT_APPLIED'));
      this.log.error({ err, reports: items.length }, 'applying a batch of reports failed; it will be retried');
      msg.nak(2000);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
