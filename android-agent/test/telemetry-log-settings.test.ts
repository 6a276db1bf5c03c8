import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { LogRing, redactLogLine } from '../src/log-ring';
import { boundedLines } from '../src/phone-link';
import { parseHubFrame } from '../src/protocol';
import { SimulatedBattery, significantChange, type Telemetry } from '../src/telemetry';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';

describe('log redaction and the ring (protocol 6)', () => {
  it('when a line holds numbers and texts, then they are masked and ids, counts and times stay', () => {
    expect(redactLogLine('2026-11-29T01:00:00.000Z INFO SMS received received_id=ec58a765-b74f from=+33612345678')).toBe(
      '2026-11-29T01:00:00.000Z INFO SMS received received_id=ec58a765-b74f from=[redacted]',
    );
    expect(
      redactLogLine('INFO sending text="Bonjour Alice, code 4242" to=+33 6 12 34 56 78 message_id=msg_01M8JE0QZB4FBFFV5KPZ1RHPSD'),
    ).toBe('INFO sending text=[redacted] to=[redacted] [number] message_id=msg_01M8JE0QZB4FBFFV5KPZ1RHPSD');
    expect(redactLogLine('WARN call 06 12 34 56 78 or +44 20 7946 0958 after 30000 ms, attempt=3')).toBe(
      'WARN call [number] or [number] after [number] ms, attempt=3',
    );
    expect(redactLogLine('x'.repeat(1000))).toHaveLength(300);
  });

  it('when more lines come than the ring holds, then the oldest go; a log frame keeps the newest that fit its bytes', () => {
    const ring = new LogRing(3);
    for (const n of ['a', 'b', 'c', 'd']) ring.add(`line ${n} to=+33612345678`);
    expect(ring.snapshot()).toEqual(['line b to=[redacted]', 'line c to=[redacted]', 'line d to=[redacted]']);
    expect(boundedLines(['1'.repeat(10), '2'.repeat(10), '3'.repeat(10)], 30)).toEqual(['2'.repeat(10), '3'.repeat(10)]);
  });

  it('when pino writes to the ring, then each line reads `<time> <LEVEL> <msg> key=value`, redacted', () => {
    const ring = new LogRing();
    const logger = pino({ name: 'x' }, ring.stream());
    logger.info({ from: '+33612345678', received_id: 'r1' }, 'SMS received');
    expect(ring.snapshot()).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO SMS received from=\[redacted\] received_id=r1$/),
    ]);
  });
});

describe('telemetry rules (protocol 6)', () => {
  const base: Telemetry = { battery: 50, charging: true, sims: [], app_version: '1', android_version: '1', risks: [] };

  it('when the battery crosses 15 %, moves 10 points, or charging, networks or risks change, then it is significant; small moves are not', () => {
    expect(significantChange(undefined, base)).toBe(true);
    expect(significantChange(base, { ...base, battery: 45 })).toBe(false);
    expect(significantChange(base, { ...base, battery: 40 })).toBe(true);
    expect(significantChange({ ...base, battery: 16 }, { ...base, battery: 15 })).toBe(true);
    expect(significantChange(base, { ...base, charging: false })).toBe(true);
    expect(significantChange(base, { ...base, risks: ['battery_optimized'] })).toBe(true);
    expect(significantChange(base, { ...base, sims: [{ slot: 1, network: 'lte' }] })).toBe(true);
  });

  it('when the simulated phone is unplugged, then its battery drains by the minute down to 0; plugged, it stays', () => {
    let now = 0;
    const unplugged = new SimulatedBattery(20, false, 6, () => now);
    const plugged = new SimulatedBattery(20, true, 6, () => now);
    now = 60_000;
    expect([unplugged.level, plugged.level]).toEqual([14, 20]);
    now = 3600_000;
    expect(unplugged.level).toBe(0);
  });

  it('when the hub sends log_request or settings, then they parse; a settings frame without a version is invalid', () => {
    expect(parseHubFrame('{"type":"log_request"}')).toEqual({ kind: 'frame', frame: { type: 'log_request' } });
    expect(parseHubFrame('{"type":"settings","version":"v1","limits":{"per_minute":5}}')).toEqual({
      kind: 'frame',
      frame: { type: 'settings', version: 'v1', limits: { per_minute: 5 } },
    });
    expect(parseHubFrame('{"type":"settings"}')).toMatchObject({ kind: 'invalid' });
  });
});

describe('agent against a hub, protocol 6 (telemetry, log, settings)', () => {
  let certs: TestCertificates;
  let hub: TestHub;
  let dataDir: string;
  let agent: Agent | undefined;

  beforeAll(() => {
    certs = createTestCertificates();
  });

  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await hub.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function start(protocol: number, options: Partial<StartAgentOptions> = {}): Promise<void> {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-v6-'));
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], protocol });
    agent = await startAgent({
      hubUrl: hub.url,
      dataDir,
      ca: certs.caPem,
      pairing: { pairingCode: PAIRING_CODE },
      driver: 'simulator',
      random: () => 0,
      ...options,
    });
    await hub.waitForConnections(1);
  }

  it('when the hub speaks 6, then telemetry goes at hello with the simulated battery, a log_request is answered with redacted lines, and settings are kept and acknowledged', async () => {
    await start(6, { battery: 12, unplugged: true, sims: 2 });
    const telemetry = await hub.waitForFrame('telemetry', (r) => r.frame.type === 'telemetry');
    expect(telemetry.frame).toMatchObject({ battery: 12, charging: false, android_version: 'simulator', risks: [] });
    expect((telemetry.frame.sims as unknown[]).length).toBe(2);

    hub.send({ type: 'simulate_received', from: '+33612345678', text: 'secret' });
    await hub.waitForFrame('the received SMS', (r) => r.frame.type === 'received');
    hub.send({ type: 'log_request' });
    const log = await hub.waitForFrame('the log', (r) => r.frame.type === 'log');
    const lines = log.frame.lines as string[];
    expect(lines.some((l) => /SMS received .*from=\[redacted\]/.test(l))).toBe(true);
    expect(JSON.stringify(lines)).not.toContain('612345678');
    expect(JSON.stringify(lines)).not.toContain('secret');

    hub.send({ type: 'settings', version: 'abc', limits: { per_minute: 5 }, sim_rule: { rule: 'default', default_sim: 2 } });
    const applied = await hub.waitForFrame('settings_applied', (r) => r.frame.type === 'settings_applied');
    expect(applied.frame).toEqual({ type: 'settings_applied', version: 'abc', applied: ['limits', 'sim_rule'] });
    const kept = JSON.parse(await fs.readFile(path.join(dataDir, 'devices', 'device_test', 'settings.json'), 'utf8'));
    expect(kept).toEqual({ version: 'abc', limits: { per_minute: 5 }, sim_rule: { rule: 'default', default_sim: 2 } });
  });

  it('when the hub speaks 5, then no telemetry goes', async () => {
    await start(5);
    await new Promise((r) => setTimeout(r, 300));
    expect(hub.received('telemetry')).toHaveLength(0);
  });
});
