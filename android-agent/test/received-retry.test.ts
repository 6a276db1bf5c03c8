import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { Inbox } from '../src/inbox';
import { parseHubFrame } from '../src/protocol';
import { MAX_RECEIVED_HOLD_MS, ReceivedRelay } from '../src/received-relay';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';

const isReceived = (received: ReceivedFrame): boolean => received.frame.type === 'received';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('agent against a hub: received_retry holds the received SMS back', () => {
  let certs: TestCertificates;
  let hub: TestHub;
  let dataDir: string;
  let agents: Agent[];

  const inboxFiles = async (): Promise<string[]> =>
    (await fs.readdir(path.join(dataDir, 'devices', 'device_test', 'inbox'))).filter((name) => name.endsWith('.json'));

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v5-'));
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], protocol: 5, autoAckReceived: false });
  });

  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    await hub.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function start(options: Partial<StartAgentOptions> = {}): Promise<{ agent: Agent; logs: LineCollector }> {
    const logs = new LineCollector();
    const agent = await startAgent({
      hubUrl: hub.url,
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

  it('when the hub answers received_retry, then no received SMS is sent until after_ms has passed, new ones included, then all of them go and are forgotten once acknowledged', async () => {
    await start({ reportResendMs: 50 });
    await hub.waitForConnections(1);
    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'un' });
    const first = await hub.waitForFrame('the first received SMS', isReceived);

    hub.send({ type: 'received_retry', received_id: first.frame.received_id, after_ms: 600 });
    await sleep(50);
    const heldAt = hub.received('received').length;
    hub.send({ type: 'simulate_received', from: '+33612345679', text: 'deux' });
    await sleep(400);

    // Held: neither the resend every 50 ms nor the new SMS went.
    expect(hub.received('received')).toHaveLength(heldAt);
    expect(await inboxFiles()).toHaveLength(2);

    const after = await hub.waitForFrames('both SMS after the wait', heldAt + 2, isReceived);
    const sentAgain = after.slice(heldAt).map((r) => r.frame.text);
    expect(sentAgain.sort()).toEqual(['deux', 'un']);
    for (const received of after.slice(heldAt)) hub.ackReceived(String(received.frame.received_id));
    for (let i = 0; i < 50 && (await inboxFiles()).length > 0; i++) await sleep(20);
    expect(await inboxFiles()).toEqual([]);
  });

  it('when the connection drops during a hold, then the new connection waits for it too', async () => {
    await start();
    await hub.waitForConnections(1);
    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'un' });
    const first = await hub.waitForFrame('the received SMS', isReceived);
    hub.send({ type: 'received_retry', received_id: first.frame.received_id, after_ms: 1500 });
    await sleep(50);

    hub.dropConnection();
    await hub.waitForConnections(2);
    await hub.waitForFrame('agent_hello on connection 2', (r) => r.connection === 2 && r.frame.type === 'agent_hello');
    await sleep(300);
    expect(hub.frames.filter((r) => r.connection === 2 && isReceived(r))).toEqual([]);

    const again = await hub.waitForFrame('the SMS on connection 2 after the wait', (r) => r.connection === 2 && isReceived(r));
    expect(again.frame).toEqual(first.frame);
  });

  it('when received_retry has no received_id or a negative after_ms, then it is an invalid frame', () => {
    expect(parseHubFrame(JSON.stringify({ type: 'received_retry', after_ms: 10 }))).toMatchObject({ kind: 'invalid' });
    expect(parseHubFrame(JSON.stringify({ type: 'received_retry', received_id: 'r', after_ms: -1 }))).toMatchObject({ kind: 'invalid' });
    expect(parseHubFrame(JSON.stringify({ type: 'received_retry', received_id: 'r', after_ms: 10 }))).toEqual({
      kind: 'frame',
      frame: { type: 'received_retry', received_id: 'r', after_ms: 10 },
    });
  });

  it('when a hub asks for a wait longer than an hour, then the agent waits an hour', async () => {
    const inbox = await Inbox.open(dataDir);
    const relay = new ReceivedRelay(inbox, 10_000);

    const waitMs = relay.hold(1e12);

    expect(waitMs).toBeLessThanOrEqual(MAX_RECEIVED_HOLD_MS);
    expect(waitMs).toBeGreaterThan(MAX_RECEIVED_HOLD_MS - 1000);
    expect(relay.held).toBe(true);
  });
});
