import { ensureStream, streamConfigs, type AgentReport, type Nats } from '@smsgw/platform';
import { createSandbox, type Sandbox } from '@smsgw/testing';
import { ReportPublisher } from '../src/events/report.publisher';

/**
 * The reports stream's de-duplication, on a real JetStream: the Nats-Msg-Id of a report is its
 * device, message and status, so a phone's resend is stored once and one phone's report never
 * passes for another's duplicate.
 */
describe('the report publisher on JetStream', () => {
  let sandbox: Sandbox;
  let nats: Nats;
  let publisher: ReportPublisher;

  beforeAll(async () => {
    sandbox = await createSandbox({ name: 'device-hub', nats: true, database: false });
    nats = sandbox.nats!;
    await ensureStream(nats.jsm, streamConfigs(nats.names).reports);
    publisher = new ReportPublisher(nats);
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

  /** The reports stored in the stream, in order: each one's subject, device, message and status. */
  async function stored(): Promise<[string, string, string, string][]> {
    const { state } = await nats.jsm.streams.info(nats.names.reportsStream);
    const out: [string, string, string, string][] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const msg = await nats.jsm.streams.getMessage(nats.names.reportsStream, { seq });
      const body = msg!.json<AgentReport>();
      out.push([msg!.subject, body.device_id, body.message_id, body.status]);
    }
    return out;
  }

  it('when two phones report the same message id and status, then both reports are stored; when one phone sends its report twice, then it is stored once', async () => {
    await publisher.publish(report('dev_a', 'msg_shared', 'delivered'));
    await publisher.publish(report('dev_b', 'msg_shared', 'delivered'));
    await publisher.publish(report('dev_a', 'msg_shared', 'delivered'));
    // The same phone's next status of the message is a report of its own.
    await publisher.publish(report('dev_a', 'msg_shared', 'failed'));

    expect(await stored()).toEqual([
      [nats.names.agentReport('dev_a'), 'dev_a', 'msg_shared', 'delivered'],
      [nats.names.agentReport('dev_b'), 'dev_b', 'msg_shared', 'delivered'],
      [nats.names.agentReport('dev_a'), 'dev_a', 'msg_shared', 'failed'],
    ]);
  });
});
