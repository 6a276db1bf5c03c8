import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame, type TestHubOptions } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const isReceived =
  (connection?: number) =>
  (received: ReceivedFrame): boolean =>
    received.frame.type === 'received' && (connection === undefined || received.connection === connection);

describe('agent against a hub: received SMS and simulate_received', () => {
  let certs: TestCertificates;
  let hub: TestHub | undefined;
  let dataDir: string;
  let agents: Agent[];
  let binDir: string;

  const inboxDir = (): string => path.join(dataDir, 'devices', 'device_test', 'inbox');
  const inboxFiles = async (): Promise<string[]> => (await fs.readdir(inboxDir())).filter((name) => name.endsWith('.json'));

  /** Polls the inbox folder: a removal is not an event the hub sees. */
  async function waitForEmptyInbox(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if ((await inboxFiles()).length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`the inbox still holds ${(await inboxFiles()).join(', ')}`);
  }

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    hub = undefined;
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v3-'));
    binDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v3-bin-'));
  });

  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    await hub?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(binDir, { recursive: true, force: true });
  });

  async function startHub(options: Partial<TestHubOptions> = {}): Promise<TestHub> {
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], protocol: 3, ...options });
    return hub;
  }

  async function start(options: Partial<StartAgentOptions> = {}): Promise<{ agent: Agent; logs: LineCollector }> {
    const logs = new LineCollector();
    const agent = await startAgent({
      hubUrl: hub!.url,
      dataDir,
      ca: certs.caPem,
      pairing: { pairingCode: PAIRING_CODE },
      driver: 'simulator',
      deliveryDelayMs: 20,
      logger: pino({ level: 'info' }, logs),
      random: () => 0,
      ...options,
    });
    agents.push(agent);
    return { agent, logs };
  }

  it('when the hub says hello, then the agent answers agent_hello with its protocol and driver, before anything else', async () => {
    const hub = await startHub();
    await start();
    const hello = await hub.waitForFrame('agent_hello', (received) => received.frame.type === 'agent_hello');

    expect(hello.frame).toEqual({ type: 'agent_hello', protocol: 8, driver: 'simulator', sims: [{ slot: 1, carrier: 'Sim Operator 1' }] });
    expect(hub.frames[0]).toBe(hello);
  });

  it('when the hub orders simulate_received, then the SMS is on disk before its received frame, with a UUID, and forgotten after received_ack', async () => {
    const hub = await startHub();
    await start({ sims: 2 });
    await hub.waitForConnections(1);

    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'Bonjour 👋', sim: 2 });
    let onDiskWhenSent: boolean | undefined;
    const received = await hub.waitForFrame('received', (frame) => {
      if (!isReceived()(frame)) return false;
      onDiskWhenSent ??= existsSync(path.join(inboxDir(), `${String(frame.frame.received_id)}.json`));
      return true;
    });

    expect(onDiskWhenSent).toBe(true);
    expect(received.frame).toEqual({
      type: 'received',
      received_id: expect.stringMatching(UUID),
      from: '+33612345678',
      text: 'Bonjour 👋',
      sim: 2,
      received_at: expect.any(String),
    });
    expect(Math.abs(Date.parse(String(received.frame.received_at)) - Date.now())).toBeLessThan(5_000);
    await waitForEmptyInbox();
  });

  it('when received_ack does not come, then the same SMS is sent again after a reconnect and after a restart, and no more once acknowledged', async () => {
    const hub = await startHub({ autoAckReceived: false });
    const first = await start();
    await hub.waitForConnections(1);
    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'STOP' });
    const original = await hub.waitForFrame('received on connection 1', isReceived(1));

    hub.dropConnection();
    const again = await hub.waitForFrame('received on connection 2', isReceived(2));
    expect(again.frame).toEqual(original.frame);

    await first.agent.stop();
    await start();
    const afterRestart = await hub.waitForFrame('received on connection 3', isReceived(3));
    expect(afterRestart.frame).toEqual(original.frame);
    expect(await inboxFiles()).toEqual([`${String(original.frame.received_id)}.json`]);

    hub.ackReceived(String(original.frame.received_id));
    await waitForEmptyInbox();
    hub.dropConnection();
    await hub.waitForConnections(4);
    await hub.waitForFrame('agent_hello on connection 4', (frame) => frame.connection === 4 && frame.frame.type === 'agent_hello');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hub.frames.filter(isReceived(4))).toEqual([]);
    expect(hub.received('received')).toHaveLength(3);
  });

  it('when a received SMS waits for its ack on an open connection, then it is sent again after the resend interval', async () => {
    const hub = await startHub({ autoAckReceived: false });
    await start({ reportResendMs: 100 });
    await hub.waitForConnections(1);
    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'hello' });

    const copies = await hub.waitForFrames('two copies', 2, isReceived(1));
    expect(copies[1]!.frame).toEqual(copies[0]!.frame);
  });

  it('when the driver is termux, then simulate_received is ignored: nothing is written or sent', async () => {
    await fs.writeFile(path.join(binDir, 'termux-sms-send'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const hub = await startHub();
    const { logs } = await start({ driver: 'termux', searchPath: binDir });
    const hello = await hub.waitForFrame('agent_hello', (received) => received.frame.type === 'agent_hello');
    expect(hello.frame).toEqual({ type: 'agent_hello', protocol: 8, driver: 'termux', sims: [] });

    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'hello' });
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(hub.received('received')).toEqual([]);
    expect(await inboxFiles()).toEqual([]);
    expect(logs.lines.join('\n')).toContain('ignoring simulate_received');
  });

  it('when simulate_received has no sender, then it is ignored as an invalid frame', async () => {
    const hub = await startHub();
    await start();
    await hub.waitForConnections(1);
    hub.send({ type: 'simulate_received', text: 'hello' });
    await new Promise((resolve) => setTimeout(resolve, 200));

    expect(hub.received('received')).toEqual([]);
  });
});
