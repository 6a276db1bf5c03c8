import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { DeviceReplacedError, DeviceUnauthorizedError, NotPairedError, PairingError, PairingRefusedError } from '../src/errors';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame } from './support/test-hub';

const PAIRING_CODE = 'K7M2Q9XA';
const CLIENT_ID = 'client_17';
const DEVICE_PASSWORD = 'ABCD-EFGH-IJKL-MNOP';
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const isFrame =
  (type: string, messageId: string, status?: string, connection?: number) =>
  (received: ReceivedFrame): boolean =>
    received.frame.type === type &&
    received.frame.message_id === messageId &&
    (status === undefined || received.frame.status === status) &&
    (connection === undefined || received.connection === connection);

describe('agent against a hub', () => {
  let certs: TestCertificates;
  let hub: TestHub;
  let dataDir: string;
  let agents: Agent[];

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-'));
    hub = await TestHub.start({
      certs,
      pairingCodes: [PAIRING_CODE],
      clients: { [CLIENT_ID]: DEVICE_PASSWORD },
    });
  });

  afterEach(async () => {
    for (const agent of agents) await agent.stop();
    await hub.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function start(options: Partial<StartAgentOptions> = {}): Promise<{ agent: Agent; stdout: LineCollector }> {
    const stdout = new LineCollector();
    const agent = await startAgent({
      hubUrl: hub.url,
      dataDir,
      ca: certs.caPem,
      pairing: { pairingCode: PAIRING_CODE },
      driver: 'simulator',
      deliveryDelayMs: 20,
      logJson: true,
      stdout,
      logger: pino({ level: 'silent' }),
      // No jitter wait: reconnections happen at once, so tests wait on frames, not on clocks.
      random: () => 0,
      ...options,
    });
    agents.push(agent);
    return { agent, stdout };
  }

  it('when the hub offers an SMS, then the agent acks it, sends it once, and reports sent then delivered; a re-offer is acked but not sent again', async () => {
    const { agent, stdout } = await start();
    await hub.waitForConnections(1);
    expect(agent.deviceId).toBe('device_test');
    expect(hub.pairRequests).toEqual([
      { pairing_code: PAIRING_CODE, agent: { name: 'smsgw-agent', version: '0.1.0', driver: 'simulator' } },
    ]);

    hub.send({ type: 'from_the_future', anything: true });
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'Votre code : 1234' });
    await hub.waitForFrame('ack of msg_1', isFrame('ack', 'msg_1'));
    await hub.waitForFrame('delivered report of msg_1', isFrame('report', 'msg_1', 'delivered'));

    const reports = hub.received('report').map((received) => received.frame);
    expect(reports.map((report) => report.status)).toEqual(['sent', 'delivered']);
    for (const report of reports) expect(report.at).toMatch(RFC3339_UTC);
    expect(Date.parse(String(reports[0]?.at))).toBeLessThanOrEqual(Date.parse(String(reports[1]?.at)));
    expect(stdout.json()).toEqual([{ message_id: 'msg_1', to: '+33611111111', text: 'Votre code : 1234' }]);

    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'Votre code : 1234' }, 2);
    await hub.waitForFrames('second ack of msg_1', 2, isFrame('ack', 'msg_1'));
    // SMS go out one at a time in order: once a later SMS is delivered, a second send of msg_1
    // would already show.
    hub.offer({ message_id: 'msg_2', to: '+33622222222', text: 'second' });
    await hub.waitForFrame('delivered report of msg_2', isFrame('report', 'msg_2', 'delivered'));

    expect(stdout.json().map((line) => (line as { message_id: string }).message_id)).toEqual(['msg_1', 'msg_2']);
    expect(hub.received('report').filter(isFrame('report', 'msg_1'))).toHaveLength(2);
    const credentialsFile = path.join(dataDir, 'devices', 'device_test', 'credentials.json');
    const credentials = JSON.parse(await fs.readFile(credentialsFile, 'utf8')) as Record<string, unknown>;
    expect(credentials).toMatchObject({ hub_url: hub.url, device_id: 'device_test' });
    expect(JSON.stringify(credentials)).not.toContain(PAIRING_CODE);
    expect((await fs.stat(credentialsFile)).mode & 0o777).toBe(0o600);
  });

  it('when the number is a magic out-of-network number, then the agent reports failed with OUT_OF_NETWORK and no sent', async () => {
    const { stdout } = await start({ pairing: { clientId: CLIENT_ID, devicePassword: DEVICE_PASSWORD } });
    await hub.waitForConnections(1);
    expect(hub.pairRequests[0]).toMatchObject({ client_id: CLIENT_ID, device_password: DEVICE_PASSWORD });

    hub.offer({ message_id: 'msg_magic', to: '+33600000002', text: 'hello' });
    const failed = await hub.waitForFrame('failed report', isFrame('report', 'msg_magic', 'failed'));

    expect(failed.frame).toEqual({
      type: 'report',
      message_id: 'msg_magic',
      status: 'failed',
      at: expect.stringMatching(RFC3339_UTC),
      error: { code: 'OUT_OF_NETWORK', message: expect.any(String) },
      // The network refused it: the SMS went through the default SIM (protocol 4).
      sim: 1,
    });
    expect(hub.received('report').filter(isFrame('report', 'msg_magic', 'sent'))).toEqual([]);
    expect(stdout.lines).toHaveLength(1);
  });

  it('when the hub drops the connection, then the agent reconnects with its stored token and resends the unacknowledged reports', async () => {
    hub.autoAckReports = false;
    await start();
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });
    await hub.waitForFrame('delivered report on connection 1', isFrame('report', 'msg_1', 'delivered', 1));

    hub.dropConnection();
    await hub.waitForConnections(2);
    const resent = await hub.waitForFrames('both reports on connection 2', 2, (received) =>
      isFrame('report', 'msg_1', undefined, 2)(received),
    );
    expect(resent.map((received) => received.frame.status)).toEqual(['sent', 'delivered']);
    expect(hub.pairRequests).toHaveLength(1);

    hub.ackReport('msg_1', 'sent');
    hub.ackReport('msg_1', 'delivered');
    hub.autoAckReports = true;
    // Acked reports are not sent after the next hello: msg_2's report follows the resends.
    hub.offer({ message_id: 'msg_2', to: '+33622222222', text: 'next' });
    await hub.waitForFrame('sent report of msg_2', isFrame('report', 'msg_2', 'sent', 2));
    hub.dropConnection();
    await hub.waitForConnections(3);
    hub.offer({ message_id: 'msg_3', to: '+33633333333', text: 'after' });
    await hub.waitForFrame('sent report of msg_3', isFrame('report', 'msg_3', 'sent', 3));
    expect(hub.frames.filter(isFrame('report', 'msg_1', undefined, 3))).toEqual([]);
  });

  it('when the agent reconnects, then it offers the TLS session the hub gave and the hub resumes it, each time', async () => {
    await start();
    await hub.waitForConnections(1);
    hub.dropConnection();
    await hub.waitForConnections(2);
    // Node's server gives no new session on a resumed connection: the agent offers the first one again.
    hub.dropConnection();
    await hub.waitForConnections(3);
    expect(hub.resumed).toEqual([false, true, true]);
  });

  it('when a report stays unacknowledged, then the agent sends it again on the same connection', async () => {
    hub.autoAckReports = false;
    await start({ reportResendMs: 50 });
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });

    await hub.waitForFrames('the delivered report twice', 2, isFrame('report', 'msg_1', 'delivered', 1));
    expect(hub.connections).toBe(1);
  });

  it('when the agent stops between ack and send, then after a restart it sends the SMS once without pairing again', async () => {
    const first = await start({ sendDelayMs: 60_000 });
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });
    await hub.waitForFrame('ack of msg_1', isFrame('ack', 'msg_1'));
    await first.agent.stop();
    expect(first.stdout.lines).toEqual([]);
    const stored = JSON.parse(await fs.readFile(path.join(dataDir, 'devices', 'device_test', 'outbox', 'msg_1.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(stored.state).toBe('accepted');

    // The pairing code was used by the first run: a second pairing would be refused.
    const second = await start();
    await hub.waitForFrame('delivered report of msg_1', isFrame('report', 'msg_1', 'delivered', 2));

    expect(second.stdout.json()).toEqual([{ message_id: 'msg_1', to: '+33611111111', text: 'hello' }]);
    expect(hub.pairRequests).toHaveLength(1);
  });

  it('when the agent stops after an SMS was sent but before its delivery report, then after a restart the report still comes, and the SMS is not sent again', async () => {
    const first = await start({ deliveryDelayMs: 60_000 });
    await hub.waitForConnections(1);
    hub.offer({ message_id: 'msg_1', to: '+33611111111', text: 'hello' });
    await hub.waitForFrame('sent report of msg_1', isFrame('report', 'msg_1', 'sent', 1));
    await first.agent.stop();
    expect(hub.received('report').filter(isFrame('report', 'msg_1', 'delivered'))).toEqual([]);

    const second = await start();
    const delivered = await hub.waitForFrame('delivered report of msg_1', isFrame('report', 'msg_1', 'delivered', 2));

    expect(delivered.frame).toMatchObject({ status: 'delivered', at: expect.stringMatching(RFC3339_UTC), sim: 1 });
    expect(first.stdout.json()).toEqual([{ message_id: 'msg_1', to: '+33611111111', text: 'hello' }]);
    expect(second.stdout.lines).toEqual([]);
  });

  it('when the hub refuses the stored token and no pairing was given, then the agent stops as unauthorized and forgets the credentials', async () => {
    const first = await start();
    await hub.waitForConnections(1);
    await first.agent.stop();
    hub.revokeTokens();

    const { agent } = await start({ pairing: undefined });

    await expect(agent.done).rejects.toBeInstanceOf(DeviceUnauthorizedError);
    await expect(fs.access(path.join(dataDir, 'devices', 'device_test', 'credentials.json'))).rejects.toThrow();
  });

  it('when the hub refuses the stored token and a device password was given, then the agent pairs again and connects', async () => {
    const pairing = { clientId: CLIENT_ID, devicePassword: DEVICE_PASSWORD };
    const first = await start({ pairing });
    await hub.waitForConnections(1);
    await first.agent.stop();
    hub.revokeTokens();

    await start({ pairing });
    await hub.waitForConnections(2);

    expect(hub.refusals).toBe(1);
    expect(hub.pairRequests).toHaveLength(2);
  });

  it('when there are no credentials and nothing to pair with, then starting fails as not paired', async () => {
    await expect(start({ pairing: undefined })).rejects.toBeInstanceOf(NotPairedError);
  });

  it('when the pairing code is refused, then starting fails with the hub message', async () => {
    const starting = start({ pairing: { pairingCode: 'WRONG' } });

    await expect(starting).rejects.toBeInstanceOf(PairingRefusedError);
    await expect(starting).rejects.toThrow(/^pairing refused: unknown, used or expired pairing/);
  });

  it('when the hub throttles pairing, then starting fails with its message and the time to wait, not as a refusal', async () => {
    await hub.close();
    hub = await TestHub.start({ certs, pairingCodes: [PAIRING_CODE], throttleSeconds: 840 });

    const starting = start();

    await expect(starting).rejects.toBeInstanceOf(PairingError);
    await expect(starting).rejects.not.toBeInstanceOf(PairingRefusedError);
    await expect(starting).rejects.toThrow(
      /^pairing refused for now: Trop de tentatives d'appairage \(RATE_LIMIT_EXCEEDED\); try again in 840 s$/,
    );
  });

  it('when the hub asks to reconnect after a delay, then the agent waits that delay instead of its backoff', async () => {
    // With this draw the backoff would wait the whole first window, 1 s.
    await start({ random: () => 1 });
    await hub.waitForConnections(1);
    const askedAt = Date.now();

    hub.send({ type: 'reconnect', after_ms: 0 });
    hub.closeConnection(1012, 'hub restarting');
    await hub.waitForConnections(2);

    expect(Date.now() - askedAt).toBeLessThan(900);
  });

  it('when another connection of the device takes over, then the agent stops instead of fighting for the device', async () => {
    const { agent } = await start();
    await hub.waitForConnections(1);

    hub.closeConnection(4002, 'replaced');

    await expect(agent.done).rejects.toBeInstanceOf(DeviceReplacedError);
  });
});
