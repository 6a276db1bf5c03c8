import type { JsMsg } from '@nats-io/jetstream';
import {
  decodeJsonPayload,
  endSpan,
  runDurableConsumer,
  startConsumerSpan,
  type DurableConsumer,
  type Logger,
  type Nats,
} from '@smsgw/platform';
import { parseReport } from '../domain/report';
import { applyReports, type ReportDeps } from '../use-cases/apply-reports.use-case';

const DURABLE = 'message-reports';

/**
 * The phones' reports one a message (`agent.report.<device>`), as hubs of earlier versions store
 * them: what such a hub stored before an upgrade is applied after it (`applyReports`, a batch of
 * one), one at a time per SMS in the order the phone sent them.
 */
export class ReportConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly deps: ReportDeps,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { names } = this.nats;
    this.consumer = await runDurableConsumer(
      this.nats,
      {
        stream: names.reportsStream,
        durable: DURABLE,
        filterSubject: names.agentReports,
        log: this.log,
        concurrency: 'keyed',
        keyOf: (msg) => parseReport(decodeJsonPayload(msg.data))?.message_id ?? '',
      },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    // A report that cannot be read is dropped (term), never allowed to stop the loop.
    const report = parseReport(decodeJsonPayload(msg.data));
    if (!report) {
      this.log.warn({ subject: msg.subject }, 'malformed agent report dropped');
      msg.term();
      return;
    }
    // In the SMS's trace, carried by the report's headers from the hub.
    const span = startConsumerSpan(msg, { 'smsgw.message_id': report.message_id, 'smsgw.report.status': report.status });
    try {
      await applyReports(this.deps, [{ report, span }], `report-${msg.seq}`);
      endSpan(span);
      msg.ack();
    } catch (err) {
      endSpan(span, 'NOT_APPLIED');
      this.log.error({ err, message_id: report.message_id }, 'applying a report failed; it will be retried');
      msg.nak(2000);
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
