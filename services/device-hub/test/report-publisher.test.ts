import { decodeReportBatch, ensureStream, streamConfigs, type AgentReport, type BatchedReport, type Nats } from '@smsgw/platform';
import { createSandbox, type Sandbox } from '@smsgw/testing';
import { ReportPublisher } from '../src/events/report.publisher';

/**
 * The report publisher on a real JetStream: the reports of a moment go in one batch message of the
 * report batches stream (a work queue), one phone's report sent twice within the moment is stored
 * once, and one phone's report never passes for another's copy.
 */
describe('the report publisher on JetStream', () => {
  let sandbox: Sandbox;
  let nats: Nats;

  beforeAll(async () => {
    sandbox = await createSandbox({ name: 'device-hub', nats: true, database: false });
    nats = sandbox.nats!;
    await ensureStream(nats.jsm, streamConfigs(nats.names).reportBatches);
  });

  afterAll(async () => {
    await sandbox?.cleanUp();
  });

  const report = (device_id: string, message_id: string, status: AgentReport['status']): AgentReport => ({
    device_id,
    message_id,
    status,
    at: '2026-11-25T07:00:00.000Z',
  });

  /** The batches stored in the stream, in order: each one's subject and its reports' device, message and status. */
  async function stored(): Promise<{ subject: string; reports: [string, string, string][] }[]> {
    const { state } = await nats.jsm.streams.info(nats.names.reportBatchesStream);
    const out: { subject: string; reports: [string, string, string][] }[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const msg = await nats.jsm.streams.getMessage(nats.names.reportBatchesStream, { seq });
      const reports = decodeReportBatch(msg!.data) as BatchedReport[];
      out.push({ subject: msg!.subject, reports: reports.map((r) => [r.device_id, r.message_id, r.status]) });
    }
    return out;
  }

  it('when phones report within one window, then their reports are stored in one batch, a phone sending the same report twice once, two phones reporting the same message both', async () => {
    const publisher = new ReportPublisher(nats, 200);
    await Promise.all([
      publisher.publish(report('dev_a', 'msg_shared', 'delivered')),
      publisher.publish(report('dev_b', 'msg_shared', 'delivered')),
      publisher.publish(report('dev_a', 'msg_shared', 'delivered')),
      // The same phone's next status of the message is a report of its own.
      publisher.publish(report('dev_a', 'msg_shared', 'failed')),
    ]);

    const batches = await stored();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.subject).toMatch(new RegExp(`^${nats.names.reportBatches.replace(/\./g, '\\.').replace('>', '[0-9a-f]{12}')}$`));
    expect(batches[0]!.reports).toEqual([
      ['dev_a', 'msg_shared', 'delivered'],
      ['dev_b', 'msg_shared', 'delivered'],
      ['dev_a', 'msg_shared', 'failed'],
    ]);
  });

  it('when a report comes after its batch left, then it goes in a batch of its own, and each publish resolves only once its batch is stored', async () => {
    const before = (await stored()).length;
    const publisher = new ReportPublisher(nats, 0);
    await publisher.publish(report('dev_c', 'msg_1', 'sent'));
    expect((await stored()).length).toBe(before + 1);
    await publisher.publish(report('dev_c', 'msg_1', 'delivered'));
    const batches = await stored();
    expect(batches.slice(before).map((b) => b.reports)).toEqual([[['dev_c', 'msg_1', 'sent']], [['dev_c', 'msg_1', 'delivered']]]);
  });
});
