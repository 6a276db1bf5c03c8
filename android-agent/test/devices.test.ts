import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startAgent, type Agent, type StartAgentOptions } from '../src/agent';
import { pairingKey } from '../src/data-dir';
import { DeviceChoiceError, DeviceInUseError, NotPairedError } from '../src/errors';
import { LineCollector } from './support/line-collector';
import { createTestCertificates, type TestCertificates } from './support/test-certs';
import { TestHub, type ReceivedFrame } from './support/test-hub';

const CLIENT_ID = 'client_17';
const PASSWORD_A = 'ABCD-EFGH-JKMN-PQRS';
const PASSWORD_B = 'WXYZ-2345-6789-ABCD';
const CODE_C = 'K7M2Q9XAK7M2Q9XAK7M2Q9XAK7M2Q9XAK7';

const delivered =
  (messageId: string) =>
  (received: ReceivedFrame): boolean =>
    received.frame.type === 'report' && received.frame.message_id === messageId && received.frame.status === 'delivered';

describe('several devices in one data directory', () => {
  let certs: TestCertificates;
  let hub: TestHub;
  let dataDir: string;
  let agents: Agent[];

  beforeAll(() => {
    certs = createTestCertificates();
  });

  beforeEach(async () => {
    agents = [];
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-agent-devices-'));
    hub = await TestHub.start({
      certs,
      pairingCodes: [CODE_C],
      // One client, two device passwords: two phones of the same account.
      clients: { [CLIENT_ID]: PASSWORD_A },
      devices: { [`${CLIENT_ID}:${PASSWORD_A}`]: 'device_A', [`${CLIENT_ID}:${PASSWORD_B}`]: 'device_B', [CODE_C]: 'device_C' },
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
      driver: 'simulator',
      deliveryDelayMs: 10,
      logJson: true,
      stdout,
      logger: pino({ level: 'silent' }),
      random: () => 0,
      ...options,
    });
    agents.push(agent);
    return { agent, stdout };
  }

  it('when a second device is paired from a data directory that already holds one, then it pairs, both run at once as themselves, and neither is knocked off', async () => {
    const a = await start({ pairing: { clientId: CLIENT_ID, devicePassword: PASSWORD_A } });
    await hub.waitForDevice('device_A');
    const c = await start({ pairing: { pairingCode: CODE_C } });
    await hub.waitForDevice('device_C');

    expect([a.agent.deviceId, c.agent.deviceId]).toEqual(['device_A', 'device_C']);
    expect(hub.pairRequests).toHaveLength(2);
    hub.offer({ message_id: 'msg_a', to: '+33611111111', text: 'from A' }, 1, 'device_A');
    hub.offer({ message_id: 'msg_c', to: '+33622222222', text: 'from C' }, 1, 'device_C');
    const [fromA, fromC] = await Promise.all([
      hub.waitForFrame('msg_a delivered', delivered('msg_a')),
      hub.waitForFrame('msg_c delivered', delivered('msg_c')),
    ]);

    expect([fromA.deviceId, fromC.deviceId]).toEqual(['device_A', 'device_C']);
    expect(a.stdout.json()).toEqual([{ message_id: 'msg_a', to: '+33611111111', text: 'from A' }]);
    expect(c.stdout.json()).toEqual([{ message_id: 'msg_c', to: '+33622222222', text: 'from C' }]);
    expect(hub.replaced).toEqual([]);
    expect(hub.connectionDevices).toEqual(['device_A', 'device_C']);
    expect((await fs.readdir(path.join(dataDir, 'devices'))).sort()).toEqual(['device_A', 'device_C']);
    await expect(fs.readdir(path.join(dataDir, 'devices', 'device_A', 'outbox'))).resolves.toBeDefined();
    await expect(fs.readdir(path.join(dataDir, 'devices', 'device_C', 'outbox'))).resolves.toBeDefined();
  });

  it('when stored credentials belong to other pairing inputs, then they are not used: the agent pairs with the inputs given', async () => {
    const first = await start({ pairing: { clientId: CLIENT_ID, devicePassword: PASSWORD_A } });
    await hub.waitForDevice('device_A');
    await first.agent.stop();

    // The hub refuses this password (it is not in `clients`): the agent must not fall back on device_A.
    await expect(start({ pairing: { clientId: CLIENT_ID, devicePassword: PASSWORD_B } })).rejects.toThrow(/pairing refused/);

    expect(hub.pairRequests).toHaveLength(2);
    expect(hub.connectionDevices).toEqual(['device_A']);
  });

  it('when the same pairing inputs are given again, typed differently, then the stored credentials are used without pairing', async () => {
    const first = await start({ pairing: { pairingCode: CODE_C } });
    await hub.waitForDevice('device_C');
    await first.agent.stop();
    const second = await start({ pairing: { clientId: CLIENT_ID, devicePassword: PASSWORD_A } });
    await hub.waitForDevice('device_A');
    await second.agent.stop();

    // The code is one-time: pairing with it again would be refused.
    const again = await start({ pairing: { pairingCode: `${CODE_C.slice(0, 17).toLowerCase()}-${CODE_C.slice(17)}` } });
    const typed = await start({ pairing: { clientId: CLIENT_ID, devicePassword: PASSWORD_A.toLowerCase().replace(/-/g, ' ') } });
    await hub.waitForConnections(4);

    expect([again.agent.deviceId, typed.agent.deviceId]).toEqual(['device_C', 'device_A']);
    expect(hub.pairRequests).toHaveLength(2);
    expect(hub.replaced).toEqual([]);
  });

  it('when a second agent starts for a device already running from the same data directory, then it stops at once and the first keeps its connection', async () => {
    const pairing = { clientId: CLIENT_ID, devicePassword: PASSWORD_A };
    await start({ pairing });
    await hub.waitForDevice('device_A');

    await expect(start({ pairing })).rejects.toBeInstanceOf(DeviceInUseError);

    expect(hub.connections).toBe(1);
    expect(hub.replaced).toEqual([]);
  });

  it('when an agent died without releasing its device, then the next start takes the device over', async () => {
    const pairing = { clientId: CLIENT_ID, devicePassword: PASSWORD_A };
    const first = await start({ pairing });
    await hub.waitForDevice('device_A');
    await first.agent.stop();
    // What a SIGKILL leaves: a lock naming a process that no longer exists.
    await fs.writeFile(path.join(dataDir, 'devices', 'device_A', 'agent.lock'), JSON.stringify({ pid: 2 ** 22 + 1 }));

    const second = await start({ pairing });

    expect(second.agent.deviceId).toBe('device_A');
    await hub.waitForConnections(2);
  });

  it('when several devices are stored and no pairing is given, then the agent asks which one, and --device chooses it', async () => {
    for (const [pairing, deviceId] of [
      [{ clientId: CLIENT_ID, devicePassword: PASSWORD_A }, 'device_A'],
      [{ pairingCode: CODE_C }, 'device_C'],
    ] as const) {
      const { agent } = await start({ pairing });
      await hub.waitForDevice(deviceId);
      await agent.stop();
    }

    await expect(start()).rejects.toBeInstanceOf(DeviceChoiceError);
    await expect(start()).rejects.toThrow(/device_A, device_C/);
    await expect(start({ deviceId: 'device_Z' })).rejects.toBeInstanceOf(NotPairedError);
    const chosen = await start({ deviceId: 'device_C' });

    expect(chosen.agent.deviceId).toBe('device_C');
    await hub.waitForConnections(3);
    expect(hub.connectionDevices.at(-1)).toBe('device_C');
  });

  it('when the data directory is an earlier version’s, then its device, outbox and done.log move into devices/<id> and a start without pairing runs it', async () => {
    // Pair once to get a token the hub knows, then lay the files out as the earlier version did.
    await (await start({ pairing: { pairingCode: CODE_C } })).agent.stop();
    const deviceDir = path.join(dataDir, 'devices', 'device_C');
    const { pairing_keys: _keys, ...legacyCredentials } = JSON.parse(
      await fs.readFile(path.join(deviceDir, 'credentials.json'), 'utf8'),
    ) as Record<string, unknown>;
    await fs.rm(path.join(dataDir, 'devices'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'credentials.json'), JSON.stringify(legacyCredentials), { mode: 0o600 });
    await fs.mkdir(path.join(dataDir, 'outbox'));
    await fs.writeFile(
      path.join(dataDir, 'outbox', 'msg_old.json'),
      JSON.stringify({
        message_id: 'msg_old',
        to: '+33633333333',
        text: 'accepted before the upgrade',
        state: 'accepted',
        pending_reports: [],
        updated_at: new Date().toISOString(),
        seq: 1,
      }),
    );
    await fs.writeFile(path.join(dataDir, 'done.log'), 'msg_done\n');

    const { agent, stdout } = await start();
    await hub.waitForFrame('msg_old delivered', delivered('msg_old'));

    expect(agent.deviceId).toBe('device_C');
    expect(stdout.json()).toEqual([{ message_id: 'msg_old', to: '+33633333333', text: 'accepted before the upgrade' }]);
    expect((await fs.readdir(dataDir)).sort()).toEqual(['devices']);
    expect((await fs.readdir(deviceDir)).sort()).toEqual(['agent.lock', 'credentials.json', 'done.log', 'inbox', 'outbox', 'record.log']);
    expect(hub.pairRequests).toHaveLength(1);
    // A re-offer of a message finished before the upgrade is acknowledged, not sent.
    hub.offer({ message_id: 'msg_done', to: '+33644444444', text: 'done before' });
    await hub.waitForFrame('ack of msg_done', (received) => received.frame.type === 'ack' && received.frame.message_id === 'msg_done');
    expect(stdout.lines).toHaveLength(1);
  });
});

describe('pairingKey', () => {
  const hub = 'https://hub.example:8444';

  it('when the same inputs are typed with other case, spaces or dashes, then the key is the same', () => {
    expect(pairingKey(hub, { clientId: ' client_1 ', devicePassword: 'abcd efgh-jkmn pqrs' })).toBe(
      pairingKey(`${hub}/v1/agent/pair?code=X`, { clientId: 'client_1', devicePassword: 'ABCD-EFGH-JKMN-PQRS' }),
    );
    expect(pairingKey(hub, { pairingCode: 'k7m2-q9xa' })).toBe(pairingKey(hub, { pairingCode: 'K7M2Q9XA' }));
  });

  it('when the hub, client, password or code differ, then the key differs and never holds the secret', () => {
    const keys = [
      pairingKey(hub, { clientId: 'client_1', devicePassword: 'ABCD-EFGH-JKMN-PQRS' }),
      pairingKey('https://other.example:8444', { clientId: 'client_1', devicePassword: 'ABCD-EFGH-JKMN-PQRS' }),
      pairingKey(hub, { clientId: 'client_2', devicePassword: 'ABCD-EFGH-JKMN-PQRS' }),
      pairingKey(hub, { clientId: 'client_1', devicePassword: 'ABCD-EFGH-JKMN-PQRT' }),
      pairingKey(hub, { pairingCode: 'ABCDEFGHJKMNPQRS' }),
    ];

    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
  });
});
