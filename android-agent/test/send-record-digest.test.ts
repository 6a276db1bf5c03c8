import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { parseCli } from '../src/cli-options';
import { buildDigest, type DigestFrame } from '../src/digest';
import { UsageError } from '../src/errors';
import { SendRecord } from '../src/send-record';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';
const isDigest = (received: ReceivedFrame): boolean => received.frame.type === 'digest';

describe('the send record and its digest', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-record-'));
  });

  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('when SMS go through their steps, then the record folds them per SMS and finds them again after a restart', async () => {
    let now = new Date('2026-11-29T10:00:00.000Z');
    const record = await SendRecord.open(dataDir, { now: () => now });
    await record.accepted('msg_A', new Date('2026-11-29T10:00:01.000Z'));
    await record.sending('msg_A', new Date('2026-11-29T10:00:02.000Z'));
    await record.sent('msg_A', new Date('2026-11-29T10:00:03.000Z'), 1);
    await record.delivered('msg_A', new Date('2026-11-29T10:00:04.000Z'), 1);
    await record.accepted('msg_B', new Date('2026-11-29T10:00:05.000Z'));
    await record.failed('msg_B', new Date('2026-11-29T10:00:06.000Z'), { code: 'OUT_OF_NETWORK', message: 'radio off' }, true);
    await record.accepted('msg_C', new Date('2026-11-29T10:00:07.000Z'));
    await record.sending('msg_C', new Date('2026-11-29T10:00:08.000Z'));
    now = new Date('2026-11-29T10:01:00.000Z');

    const again = await SendRecord.open(dataDir, { now: () => now });
    expect(again.list()).toEqual([
      {
        message_id: 'msg_A',
        state: 'delivered',
        parts: 1,
        parts_sent: 1,
        parts_failed: 0,
        parts_delivered: 1,
        accepted_at: '2026-11-29T10:00:01.000Z',
        sent_at: '2026-11-29T10:00:03.000Z',
        delivered_at: '2026-11-29T10:00:04.000Z',
        sim: 1,
      },
      {
        message_id: 'msg_B',
        state: 'failed',
        parts: 1,
        parts_sent: 0,
        parts_failed: 1,
        parts_delivered: 0,
        accepted_at: '2026-11-29T10:00:05.000Z',
        failed_at: '2026-11-29T10:00:06.000Z',
        error: { code: 'OUT_OF_NETWORK', message: 'radio off' },
        not_sent: true,
      },
      {
        message_id: 'msg_C',
        state: 'sending',
        parts: 1,
        parts_sent: 0,
        parts_failed: 0,
        parts_delivered: 0,
        accepted_at: '2026-11-29T10:00:07.000Z',
      },
    ]);
    // Complete since the record was first opened, not before.
    expect(again.coversFrom().toISOString()).toBe('2026-11-29T10:00:00.000Z');
  });

  it('when SMS were handed over longer ago than the record keeps, then they leave it and it covers only the time it keeps', async () => {
    let now = new Date('2026-11-29T10:00:00.000Z');
    const record = await SendRecord.open(dataDir, { now: () => now, keepMs: 3600_000 });
    await record.accepted('msg_OLD', new Date('2026-11-29T10:00:00.000Z'));
    await record.accepted('msg_NEW', new Date('2026-11-29T10:40:00.000Z'));
    now = new Date('2026-11-29T11:30:00.000Z');

    expect(record.list().map((e) => e.message_id)).toEqual(['msg_NEW']);
    expect(record.coversFrom().toISOString()).toBe('2026-11-29T10:30:00.000Z');
    const reopened = await SendRecord.open(dataDir, { now: () => now, keepMs: 3600_000 });
    expect(reopened.list().map((e) => e.message_id)).toEqual(['msg_NEW']);
    const lines = (await fs.readFile(path.join(dataDir, 'record.log'), 'utf8')).trim().split('\n');
    expect(lines.some((line) => line.includes('msg_OLD'))).toBe(false);
  });

  it('when the record has more SMS than a frame holds, then the digest is cut into frames whose spans of time follow each other', () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({
      message_id: `msg_${i}`,
      state: 'sent' as const,
      parts: 1,
      parts_sent: 1,
      parts_failed: 0,
      parts_delivered: 0,
      accepted_at: `2026-11-29T10:0${i}:00.000Z`,
      sent_at: `2026-11-29T10:0${i}:01.000Z`,
    }));
    const frames = buildDigest(entries.reverse(), new Date('2026-11-29T09:00:00.000Z'), new Date('2026-11-29T11:00:00.000Z'), 2);

    expect(frames.map((f) => [f.chunk, f.chunks, f.covers_from, f.covers_to, f.entries.map((e) => e.message_id)])).toEqual([
      [1, 3, '2026-11-29T09:00:00.000Z', '2026-11-29T10:01:00.000Z', ['msg_0', 'msg_1']],
      [2, 3, '2026-11-29T10:01:00.000Z', '2026-11-29T10:03:00.000Z', ['msg_2', 'msg_3']],
      [3, 3, '2026-11-29T10:03:00.000Z', '2026-11-29T11:00:00.000Z', ['msg_4']],
    ]);
    expect(new Set(frames.map((f) => f.digest_id)).size).toBe(1);
    expect(buildDigest([], new Date('2026-11-29T09:00:00.000Z'), new Date('2026-11-29T11:00:00.000Z'))).toEqual([
      expect.objectContaining({ chunk: 1, chunks: 1, entries: [], covers_to: '2026-11-29T11:00:00.000Z' }),
    ]);
  });

  it('when --sim-drop-reports is not a share from 0 to 1, or goes with termux, then the command line is refused', async () => {
    const context = { env: {}, homeDir: dataDir, repoRoot: dataDir };
    const base = ['--hub', 'https://127.0.0.1:9', '--client', 'c', '--device-password', 'p'];
    await expect(parseCli([...base, '--sim-drop-reports', '1.5'], context)).rejects.toBeInstanceOf(UsageError);
    await expect(parseCli([...base, '--sim-drop-reports', 'lots'], context)).rejects.toBeInstanceOf(UsageError);
    await expect(parseCli([...base, '--driver', 'termux', '--sim-drop-reports', '0.3'], context)).rejects.toBeInstanceOf(UsageError);
    const parsed = await parseCli(base, {
      ...context,
      env: { SMSGW_AGENT_SIM_DROP_REPORTS: '0.3', SMSGW_AGENT_DIGEST_INTERVAL_MS: '3000' },
    });
    expect(parsed).toMatchObject({ kind: 'run', options: { dropReports: 0.3, digestIntervalMs: 3000 } });
  });
});

describe('agent against a hub, protocol 7 (digest)', () => {
  let certs: TestCertificates;
  let hub: TestHub;
  let dataDir: string;
  let agents: Agent[];

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v7-'));
  });

  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    await hub.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function start(protocol: number, options: Partial<StartAgentOptions> = {}): Promise<Agent> {
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], protocol });
    const agent = await startAgent({
      hubUrl: hub.url,
      dataDir,
      ca: certs.caPem,
      pairing: { pairingCode: PAIRING_CODE },
      driver: 'simulator',
      deliveryDelayMs: 20,
      logger: pino({ level: 'info' }, new LineCollector()),
      random: () => 0,
      ...options,
    });
    agents.push(agent);
    return agent;
  }

  it('when every report is lost in transit, then the hub gets none, and the next digest lists the SMS delivered', async () => {
    await start(7, { dropReports: 1, digestIntervalMs: 300 });
    await hub.waitForConnections(1);
    const first = await hub.waitForFrame('the digest after hello', isDigest);
    expect(first.frame).toMatchObject({ type: 'digest', chunk: 1, chunks: 1, entries: [] });

    hub.offer({ message_id: 'msg_LOST', to: '+33612345678', text: 'Bonjour' });
    const digest = await hub.waitForFrame(
      'a digest with the SMS delivered',
      (r) => isDigest(r) && (r.frame as unknown as DigestFrame).entries.some((e) => e.state === 'delivered'),
    );
    const entry = (digest.frame as unknown as DigestFrame).entries[0]!;
    expect(entry).toMatchObject({ message_id: 'msg_LOST', state: 'delivered', parts: 1, parts_sent: 1, parts_delivered: 1, sim: 1 });
    expect(Date.parse(entry.accepted_at)).toBeGreaterThanOrEqual(Date.parse((digest.frame as unknown as DigestFrame).covers_from));
    expect(hub.received('report')).toEqual([]);
  });

  it('when the hub speaks protocol 5, then the agent sends no digest and its reports as before', async () => {
    await start(5, { digestIntervalMs: 100 });
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_OLD_HUB', to: '+33612345678', text: 'Bonjour' });
    await hub.waitForFrame('the delivered report', (r) => r.frame.type === 'report' && r.frame.status === 'delivered');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hub.received('digest')).toEqual([]);
  });
});
