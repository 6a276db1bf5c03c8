import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame, type TestHubOptions } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';

const isReport =
  (messageId: string, status: string, connection?: number) =>
  (received: ReceivedFrame): boolean =>
    received.frame.type === 'report' &&
    received.frame.message_id === messageId &&
    received.frame.status === status &&
    (connection === undefined || received.connection === connection);

const isAck =
  (messageId: string) =>
  (received: ReceivedFrame): boolean =>
    received.frame.type === 'ack' && received.frame.message_id === messageId;

const inMs = (ms: number): string => new Date(Date.now() + ms).toISOString();

describe('agent against a hub: SMS that expire, and failures that say not_sent', () => {
  let certs: TestCertificates;
  let hub: TestHub | undefined;
  let dataDir: string;
  let agents: Agent[];

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    hub = undefined;
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v2-'));
  });

  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    await hub?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function startHub(options: Partial<TestHubOptions> = {}): Promise<TestHub> {
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], ...options });
    return hub;
  }

  async function start(options: Partial<StartAgentOptions> = {}): Promise<{ agent: Agent; stdout: LineCollector; logs: LineCollector }> {
    const stdout = new LineCollector();
    const logs = new LineCollector();
    const agent = await startAgent({
      hubUrl: hub!.url,
      dataDir,
      ca: certs.caPem,
      pairing: { pairingCode: PAIRING_CODE },
      driver: 'simulator',
      deliveryDelayMs: 20,
      logJson: true,
      stdout,
      logger: pino({ level: 'info' }, logs),
      random: () => 0,
      ...options,
    });
    agents.push(agent);
    return { agent, stdout, logs };
  }

  it('when an SMS expires while it waits to be sent, then it is not sent and is reported failed with EXPIRED and not_sent', async () => {
    const hub = await startHub();
    const { stdout } = await start({ sendDelayMs: 400 });
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_late', to: '+33611111111', text: 'hello', expires_at: inMs(100) });
    await hub.waitForFrame('ack of msg_late', isAck('msg_late'));
    const failed = await hub.waitForFrame('failed report', isReport('msg_late', 'failed'));

    expect(failed.frame).toEqual({
      type: 'report',
      message_id: 'msg_late',
      status: 'failed',
      at: expect.any(String),
      error: { code: 'EXPIRED', message: expect.any(String) },
      not_sent: true,
    });
    expect(stdout.lines).toEqual([]);
    expect(hub.received('report').filter((received) => received.frame.message_id === 'msg_late')).toHaveLength(1);
  });

  it('when an SMS expires later than it is sent, then it is sent and delivered as usual', async () => {
    const hub = await startHub();
    const { stdout } = await start();
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello', expires_at: inMs(60_000) });
    await hub.waitForFrame('delivered report', isReport('msg_1', 'delivered'));

    expect(stdout.json()).toEqual([{ message_id: 'msg_1', to: '+33611111111', text: 'hello' }]);
  });

  it('when an accepted SMS expired while the agent was stopped, then after a restart it is reported EXPIRED with not_sent and never sent', async () => {
    const hub = await startHub();
    const first = await start({ sendDelayMs: 60_000 });
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello', expires_at: inMs(150) });
    hub.offer({ message_id: 'msg_2', to: '+33622222222', text: 'no expiry' });
    await hub.waitForFrame('ack of msg_2', isAck('msg_2'));
    await first.agent.stop();
    const stored = JSON.parse(await fs.readFile(path.join(dataDir, 'devices', 'device_test', 'outbox', 'msg_1.json'), 'utf8')) as {
      state: string;
      expires_at?: string;
    };
    expect(stored).toMatchObject({ state: 'accepted', expires_at: expect.any(String) });
    await new Promise((resolve) => setTimeout(resolve, 200));

    const second = await start();
    const failed = await hub.waitForFrame('failed report of msg_1', isReport('msg_1', 'failed', 2));
    await hub.waitForFrame('delivered report of msg_2', isReport('msg_2', 'delivered', 2));

    expect(failed.frame).toMatchObject({ error: { code: 'EXPIRED' }, not_sent: true });
    expect(second.stdout.json()).toEqual([{ message_id: 'msg_2', to: '+33622222222', text: 'no expiry' }]);
    expect(second.logs.lines.join('\n')).toContain('expired while the agent was stopped');
  });

  it('when the radio is off, then every SMS fails at once with OUT_OF_NETWORK and not_sent, and the re-sent report still says not_sent', async () => {
    const hub = await startHub({ autoAckReports: false });
    const { stdout } = await start({ radioOff: true, reportResendMs: 100 });
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });
    const reports = await hub.waitForFrames('two failed reports', 2, isReport('msg_1', 'failed'));
    hub.ackReport('msg_1', 'failed');

    for (const report of reports) {
      expect(report.frame).toEqual({
        type: 'report',
        message_id: 'msg_1',
        status: 'failed',
        at: reports[0]!.frame.at,
        error: { code: 'OUT_OF_NETWORK', message: expect.stringContaining('radio') },
        not_sent: true,
      });
    }
    expect(stdout.lines).toEqual([]);
    expect(hub.received('report').filter(isReport('msg_1', 'sent'))).toEqual([]);
  });

  it('when a magic number fails, then the report has no not_sent: the network refused an SMS that left the phone', async () => {
    const hub = await startHub();
    await start();
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_magic', to: '+33600000002', text: 'hello' });
    const failed = await hub.waitForFrame('failed report', isReport('msg_magic', 'failed'));

    expect(failed.frame).toMatchObject({ error: { code: 'OUT_OF_NETWORK' } });
    expect(failed.frame).not.toHaveProperty('not_sent');
  });

  it.each([
    [1, false],
    [2, false],
    [3, false],
    [4, false],
    [5, false],
    [6, false],
    [7, false],
    [8, false],
    [9, true],
  ])('when the hub says hello with protocol %s, then the agent works and warns of another version: %s', async (protocol, warns) => {
    const hub = await startHub({ protocol });
    const { logs } = await start();
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });
    await hub.waitForFrame('delivered report', isReport('msg_1', 'delivered'));

    expect(logs.lines.join('\n').includes('another protocol version')).toBe(warns);
  });
});
