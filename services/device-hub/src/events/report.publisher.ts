import { publishTraced, type AgentReport, type Nats } from '@smsgw/platform';

/**
 * Stores what a phone (or the test-mode simulator) said about a message in
 * JetStream, on `agent.report.<device>`. The device, message id and status
 * make the Nats-Msg-Id, so a report sent twice is stored once, and one
 * device's report can never be taken for another's as a duplicate.
 */
export class ReportPublisher {
  constructor(private readonly nats: Nats) {}

  async publish(report: AgentReport): Promise<void> {
    const { js, names } = this.nats;
    // In the active trace (the SMS's, when the phone echoed it): the message service continues it.
    await publishTraced(
      js,
      names.agentReport(report.device_id),
      JSON.stringify(report),
      { msgID: `${report.device_id}:${report.message_id}:${report.status}` },
      {
        'smsgw.message_id': report.message_id,
        'smsgw.report.status': report.status,
      },
    );
  }
}
