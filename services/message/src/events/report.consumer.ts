import type { JsMsg } from '@nats-io/jetstream';
import {
  AGENT_REPORT_STATUSES,
  consumeTraced,
  decodeJsonPayload,
  counter,
  inTrace,
  FAILURE_CODES,
  FAILURE_MESSAGES,
  runDurableConsumer,
  type AgentReport,
  type DurableConsumer,
  type Logger,
  type Nats,
} from '@smsgw/platform';
import type { FleetRepository } from '../data/fleet.repository';
import type { MessageRepository } from '../data/message.repository';
import { reportOutcome } from '../domain/message-status';
import { reportedSim } from '../domain/sim';
import type { SmsEventPublisher } from './sms-event.publisher';
import { WakeUpPublisher } from './wake-up.publisher';

const DURABLE = 'message-reports';
const retriesElsewhere = counter('message.retries_elsewhere', 'Messages a phone failed without sending them, opened to its fleet');
const reportsSeen = counter('message.reports', 'Phone reports applied (a redelivered one counts again), by status and failure code');

function parseReport(bytes: Uint8Array): AgentReport | undefined {
  const r = decodeJsonPayload<AgentReport>(bytes);
  if (!r || typeof r.message_id !== 'string' || typeof r.device_id !== 'string') return undefined;
  if (!AGENT_REPORT_STATUSES.includes(r.status as never) || typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at))) return undefined;
  return r as AgentReport;
}

/**
 * Applies the phones' reports (`agent.report.<device>`) to the messages.
 * A failure that sent nothing (`not_sent`), while another phone of the client
 * is online (`retry_elsewhere`), of an unpinned message that never failed
 * before, opens the message to the fleet instead of failing it (no event).
 * Each report is acknowledged only after its write and its public event are
 * durable, so a crash in between means the report is applied again: the
 * state machine turns that into a no-op, and the event is published again
 * with the same id (de-duplicated by JetStream).
 */
export class ReportConsumer {
  private consumer?: DurableConsumer;

  constructor(
    private readonly nats: Nats,
    private readonly repo: MessageRepository,
    private readonly fleet: FleetRepository,
    private readonly publisher: SmsEventPublisher,
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
        // The reports of one SMS in the order the phone sent them; those of different SMS at once:
        // one at a time, a replica applied some 20 reports a second, under a tenth of what 2,000 phones send.
        concurrency: 'keyed',
        keyOf: (msg) => parseReport(msg.data)?.message_id ?? '',
      },
      (msg) => this.handle(msg),
    );
  }

  private async handle(msg: JsMsg): Promise<void> {
    // A report that cannot be read is dropped (term), never allowed to stop the loop.
    const report = parseReport(msg.data);
    if (!report) {
      this.log.warn({ subject: msg.subject }, 'malformed agent report dropped');
      msg.term();
      return;
    }
    try {
      // In the SMS's trace, carried by the report's headers from the hub.
      await consumeTraced(msg, { 'smsgw.message_id': report.message_id, 'smsgw.report.status': report.status }, () => this.apply(report));
      msg.ack();
    } catch (err) {
      this.log.error({ err, message_id: report.message_id }, 'applying a report failed; it will be retried');
      msg.nak(2000);
    }
  }

  async apply(report: AgentReport): Promise<void> {
    reportsSeen.add(1, { status: report.status, ...(report.error ? { 'error.code': report.error.code } : {}) });
    const at = new Date(report.at);
    // The slot the phone says it sent through (protocol 4); 0: the message keeps its own.
    const sim = reportedSim(report.sim);
    if (report.status === 'accepted') {
      await this.repo.markAccepted(report.message_id, report.device_id, at, sim);
      return;
    }
    const code = report.status === 'failed' && FAILURE_CODES.includes(report.error?.code as never) ? report.error!.code : 'DEVICE_ERROR';
    const error = report.status === 'failed' ? { code, message: FAILURE_MESSAGES[code] } : undefined;
    if (error && report.not_sent === true && report.retry_elsewhere === true) {
      // Nothing left the phone and another phone of the client is online: try it there once.
      const retried = await this.fleet.retryElsewhere(report.message_id, report.device_id, { ...error, at: at.toISOString(), sim });
      if (retried) {
        retriesElsewhere.add(1, { 'error.code': code });
        new WakeUpPublisher(this.nats).wakeClient(retried.client_id, 1);
        return;
      }
    }
    const status = report.status;
    const moved = await inTrace('message.state_change', '', { 'smsgw.message_id': report.message_id, 'smsgw.status': status }, () =>
      this.repo.applyReport(report.message_id, report.device_id, status, at, error, sim),
    );
    if (moved) {
      await this.publisher.publish(moved);
      return;
    }
    const current = await this.repo.findById(report.message_id);
    if (!current || current.device_id !== report.device_id) {
      this.log.warn({ message_id: report.message_id, device_id: report.device_id }, 'report for an unknown message or another device');
      return;
    }
    if (reportOutcome(current.status, report.status) === 'duplicate') {
      await this.publisher.publish(current);
    } else if (report.status === 'sent' && current.sent_at && (current.status === 'delivered' || current.status === 'failed')) {
      // The message went on without this report: its delivered (or failed) report overtook it, or this
      // one is redelivered after a crash that came between its write and its event. Either way its
      // sms.sent may never have been published. Its id comes from sent_at, so one already published
      // is dropped again by JetStream and by receivers.
      await this.publisher.publish({ ...current, status: 'sent' });
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}
