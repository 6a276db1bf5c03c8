import type { AgentReport, LogSink, PromiseClient } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import type { DeviceRow } from '../data/device-row';
import type { ReportPublisher } from '../events/report.publisher';
import type { MessageCalls } from './message-calls';
import { deviceOwnsMessage, reportsRefused } from '../use-cases/report-ownership.use-case';
import type { HandedMessages } from './handed-messages';

export interface ReportRelayDeps {
  messages: PromiseClient<message.MessageServiceClient>;
  calls: Pick<MessageCalls, 'accept'>;
  reports: ReportPublisher;
  /** Whether another phone of the device's client, not removed, is online now. */
  otherPhoneOnline(device: DeviceRow): Promise<boolean>;
}

/**
 * The report path of one phone's connection: its acknowledgements to the message service, its
 * reports to JetStream (only on messages handed to this device), with `retry_elsewhere` added to
 * a `not_sent` failure when another phone of the client is online.
 */
export class ReportRelay {
  constructor(
    private readonly device: DeviceRow,
    private readonly handed: HandedMessages,
    private readonly deps: ReportRelayDeps,
    private readonly log: LogSink,
    private readonly send: (frame: Record<string, unknown>) => void,
  ) {}

  /**
   * Stores a phone's report, if the message was handed to this device: a
   * report on any other message (another tenant's, or another phone's) is
   * acknowledged, so that the phone forgets it, but never stored. `fromPhone` false: the hub's own
   * report on the phone's behalf (protocol 8's gate), which the phone is not told of.
   */
  async relay(report: AgentReport, fromPhone = true): Promise<void> {
    let owned: boolean;
    try {
      owned = this.handed.has(report.message_id) || (await deviceOwnsMessage(this.deps, this.device, report.message_id));
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
    if (report.not_sent) {
      // Nothing left this phone: the message service may try another one, if one is online now.
      try {
        if (await this.deps.otherPhoneOnline(this.device)) report.retry_elsewhere = true;
      } catch (err) {
        this.log.warn(
          { err, message_id: report.message_id },
          "checking the client's other phones failed; the agent will send the report again",
        );
        return;
      }
    }
    this.publish(report, fromPhone);
  }

  /**
   * Records the phone's acknowledgement (with the SIM slot the hub told it to send through, 0:
   * none) at the message service at once, with the other phones' of the moment; when
   * that call fails, through JetStream like a report, so that it is still
   * applied once the message service is back.
   */
  async accept(messageId: string, sim = 0, traceparent = ''): Promise<void> {
    const at = new Date().toISOString();
    try {
      const outcome = await this.deps.calls.accept({ deviceId: this.device.device_id, messageId, at, sim, traceparent });
      if (!outcome.accepted)
        this.log.warn({ message_id: messageId, status: outcome.status }, 'the phone acknowledged a message that had left the queue');
    } catch (err) {
      this.log.warn({ err, message_id: messageId }, 'recording the acknowledgement failed; it goes through JetStream');
      this.publish({ message_id: messageId, device_id: this.device.device_id, status: 'accepted', at, ...(sim > 0 ? { sim } : {}) }, false);
    }
  }

  /** Stores the report durably in JetStream, then (for phone reports) tells the phone it may forget it. */
  private publish(report: AgentReport, confirm: boolean): void {
    this.deps.reports.publish(report).then(
      () => {
        if (confirm) this.send({ type: 'report_ack', message_id: report.message_id, status: report.status });
      },
      (err: unknown) => this.log.error({ err, message_id: report.message_id }, 'report not stored; the agent will send it again'),
    );
  }
}
