import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';

const isReport =
  (messageId: string, status: string) =>
  (received: ReceivedFrame): boolean =>
    received.frame.type === 'report' && received.frame.message_id === messageId && received.frame.status === status;

const isReceived = (received: ReceivedFrame): boolean => received.frame.type === 'received';

describe('agent against a hub: several SIMs', () => {
  let certs: TestCertificates;
  let hub: TestHub;
  let dataDir: string;
  let binDir: string;
  let agents: Agent[];

  const entryFile = (id: string): string => path.join(dataDir, 'devices', 'device_test', 'outbox', `${id}.json`);

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v4-'));
    binDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v4-bin-'));
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], protocol: 4 });
  });

  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    await hub.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(binDir, { recursive: true, force: true });
  });

  async function start(options: Partial<StartAgentOptions> = {}): Promise<{ agent: Agent; stdout: LineCollector; logs: LineCollector }> {
    const stdout = new LineCollector();
    const logs = new LineCollector();
    const agent = await startAgent({
      hubUrl: hub.url,
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

  it('when the simulator has 3 SIMs, then agent_hello lists them by slot with their carriers and no numbers, and the hub of version 4 gets no warning', async () => {
    const { logs } = await start({ sims: 3 });
    const hello = await hub.waitForFrame('agent_hello', (received) => received.frame.type === 'agent_hello');

    expect(hello.frame).toEqual({
      type: 'agent_hello',
      protocol: 8,
      driver: 'simulator',
      sims: [
        { slot: 1, carrier: 'Sim Operator 1' },
        { slot: 2, carrier: 'Sim Operator 2' },
        { slot: 3, carrier: 'Sim Operator 3' },
      ],
    });
    expect(logs.lines.join('\n')).not.toContain('another protocol version');
  });

  it('when an SMS asks for SIM 2, then its outbox entry keeps the slot and every report says it went through SIM 2', async () => {
    hub.autoAckReports = false;
    await start({ sims: 2 });
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 2 });
    const sent = await hub.waitForFrame('sent report', isReport('msg_1', 'sent'));
    const delivered = await hub.waitForFrame('delivered report', isReport('msg_1', 'delivered'));

    expect(sent.frame).toMatchObject({ sim: 2 });
    expect(delivered.frame).toMatchObject({ sim: 2 });
    const stored = JSON.parse(await fs.readFile(entryFile('msg_1'), 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ message_id: 'msg_1', sim: 2, state: 'delivered' });
  });

  it('when an SMS asks for no SIM, then the simulator sends it through its default SIM, slot 1, and says so', async () => {
    await start({ sims: 2 });
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });
    const delivered = await hub.waitForFrame('delivered report', isReport('msg_1', 'delivered'));

    expect(delivered.frame).toMatchObject({ sim: 1 });
  });

  it('when an SMS asks for a slot the phone does not have, then it is not sent and is reported failed with DEVICE_ERROR and not_sent', async () => {
    const { stdout } = await start({ sims: 2 });
    await hub.waitForConnections(1);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 3 });
    const failed = await hub.waitForFrame('failed report', isReport('msg_1', 'failed'));

    expect(failed.frame).toEqual({
      type: 'report',
      message_id: 'msg_1',
      status: 'failed',
      at: expect.any(String),
      error: { code: 'DEVICE_ERROR', message: 'SIM 3 absente' },
      not_sent: true,
    });
    expect(hub.received('report').filter(isReport('msg_1', 'sent'))).toEqual([]);
    expect(stdout.lines).toEqual([]);
  });

  it('when the agent restarts before sending an SMS that asks for SIM 2, then it sends it through SIM 2 after the restart', async () => {
    const first = await start({ sims: 2, sendDelayMs: 60_000 });
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 2 });
    await hub.waitForFrame('ack', (received) => received.frame.type === 'ack' && received.frame.message_id === 'msg_1');
    await first.agent.stop();
    const stored = JSON.parse(await fs.readFile(entryFile('msg_1'), 'utf8')) as Record<string, unknown>;
    expect(stored).toMatchObject({ state: 'accepted', sim: 2 });

    await start({ sims: 2 });
    const delivered = await hub.waitForFrame('delivered report', isReport('msg_1', 'delivered'));

    expect(delivered.frame).toMatchObject({ sim: 2 });
  });

  it.each([
    [2, 2],
    [4, 1],
  ])('when the hub orders simulate_received on SIM %s of a phone with 2 SIMs, then the SMS arrives on SIM %s', async (asked, used) => {
    await start({ sims: 2 });
    await hub.waitForConnections(1);

    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'hello', sim: asked });
    const received = await hub.waitForFrame('received', isReceived);

    expect(received.frame).toMatchObject({ from: '+33612345678', sim: used });
  });

  it('when the driver is termux and an SMS asks for SIM 2, then termux-sms-send gets -s 1 and the reports say SIM 2; its SIMs are unknown', async () => {
    const script = ['#!/bin/sh', `for arg in "$@"; do printf '%s\\n' "$arg"; done > '${binDir}/args'`, 'cat > /dev/null', 'exit 0', ''];
    await fs.writeFile(path.join(binDir, 'termux-sms-send'), script.join('\n'), { mode: 0o755 });
    await start({ driver: 'termux', searchPath: binDir });
    const hello = await hub.waitForFrame('agent_hello', (received) => received.frame.type === 'agent_hello');
    expect(hello.frame).toMatchObject({ sims: [] });

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello', sim: 2 });
    const sent = await hub.waitForFrame('sent report', isReport('msg_1', 'sent'));

    expect(sent.frame).toMatchObject({ sim: 2 });
    expect(await fs.readFile(path.join(binDir, 'args'), 'utf8')).toBe('-s\n1\n-n\n+33611111111\n');
  });
});
