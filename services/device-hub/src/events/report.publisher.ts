import type { AgentReport, Nats } from '@smsgw/platform';

/**
 * Stores what a phone (or the test-mode simulator) said about a message in
 * JetStream, on `agent.report.<device>`. The message id and status make the
 * Nats-Msg-Id, so a report sent twice is stored once.
 */
export class ReportPublisher {
  constructor(private readonly nats: Nats) {}

  async publish(report: AgentReport): Promise<void> {
    const { js, names } = this.nats;
    await js.publish(names.agentReport(report.device_id), JSON.stringify(report), { msgID: `${report.message_id}:${report.status}` });
  }
}
