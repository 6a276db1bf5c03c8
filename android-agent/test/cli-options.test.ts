import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { exitCodeFor, parseCli, type CliContext } from '../src/cli-options';
import {
  DeviceChoiceError,
  DeviceInUseError,
  DeviceUnauthorizedError,
  NotPairedError,
  PairingError,
  PairingRefusedError,
  UsageError,
} from '../src/errors';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('parseCli', () => {
  let root: string;
  let context: CliContext;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'smsgw-cli-'));
    context = { env: {}, homeDir: path.join(root, 'home'), repoRoot: path.join(root, 'repo') };
  });

  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  async function writeStackFile(content: unknown): Promise<void> {
    await fs.mkdir(path.join(root, 'repo', '.stack'), { recursive: true });
    await fs.writeFile(path.join(root, 'repo', '.stack', 'dev.json'), JSON.stringify(content));
  }

  async function run(argv: string[]) {
    const command = await parseCli(argv, context);
    if (command.kind !== 'run') throw new Error('expected a run command');
    return command.options;
  }

  it('when a pairing URL is given, then its origin is the hub and its code is the pairing secret', async () => {
    const options = await run(['--pairing-url', 'https://127.0.0.1:8444/v1/agent/pair?code=K7M2Q9XA', '--log-json']);

    expect(options).toEqual({
      hubUrl: 'https://127.0.0.1:8444',
      dataDir: path.join(root, 'home', '.smsgw-agent'),
      driver: 'simulator',
      logJson: true,
      pairing: { pairingCode: 'K7M2Q9XA' },
    });
  });

  it('when the local stack file exists, then its hub and CA are the defaults', async () => {
    const caFile = path.join(root, 'ca.pem');
    await fs.writeFile(caFile, CA_PEM);
    await writeStackFile({ hubUrl: 'https://127.0.0.1:8444', caFile });

    const options = await run(['--client', 'client_1', '--device-password', 'ABCD-EFGH-IJKL-MNOP', '--name', 'Pixel']);

    expect(options).toMatchObject({
      hubUrl: 'https://127.0.0.1:8444',
      ca: CA_PEM,
      pairing: { clientId: 'client_1', devicePassword: 'ABCD-EFGH-IJKL-MNOP' },
      deviceName: 'Pixel',
    });
  });

  it('when no flag, stack file or stored credentials give a hub, then it is a usage error naming dev.json', async () => {
    const parsing = parseCli(['--client', 'c', '--device-password', 'p'], context);

    await expect(parsing).rejects.toBeInstanceOf(UsageError);
    await expect(parsing).rejects.toThrow(/\.stack\/dev\.json/);
  });

  async function storeDevice(dataDir: string, deviceId: string, hubUrl: string): Promise<void> {
    await fs.mkdir(path.join(dataDir, 'devices', deviceId), { recursive: true });
    await fs.writeFile(
      path.join(dataDir, 'devices', deviceId, 'credentials.json'),
      JSON.stringify({ hub_url: hubUrl, device_id: deviceId, device_token: 'dtk_1' }),
    );
  }

  it('when only stored credentials know the hub, then the agent goes back to that hub', async () => {
    const dataDir = path.join(root, 'data');
    await storeDevice(dataDir, 'device_1', 'https://hub.example:8444');
    await storeDevice(dataDir, 'device_2', 'https://hub.example:8444');
    context.env.SMSGW_AGENT_DIR = dataDir;

    const options = await run(['--driver', 'termux', '--device', 'device_2']);

    expect(options).toMatchObject({ hubUrl: 'https://hub.example:8444', dataDir, driver: 'termux', deviceId: 'device_2' });
  });

  it('when only the credentials of an earlier version know the hub, then the agent goes back to that hub', async () => {
    const dataDir = path.join(root, 'data');
    await fs.mkdir(dataDir);
    await fs.writeFile(
      path.join(dataDir, 'credentials.json'),
      JSON.stringify({ hub_url: 'https://hub.example:8444', device_id: 'device_1', device_token: 'dtk_1' }),
    );
    context.env.SMSGW_AGENT_DIR = dataDir;

    const options = await run(['--driver', 'termux']);

    expect(options).toMatchObject({ hubUrl: 'https://hub.example:8444', dataDir, driver: 'termux' });
  });

  it('when stored devices are paired with two hubs and nothing chooses, then it is a usage error asking for --hub', async () => {
    const dataDir = path.join(root, 'data');
    await storeDevice(dataDir, 'device_1', 'https://a.example:8444');
    await storeDevice(dataDir, 'device_2', 'https://b.example:8444');
    context.env.SMSGW_AGENT_DIR = dataDir;

    await expect(parseCli([], context)).rejects.toThrow(/several hubs.*--hub/);
    await expect(run(['--device', 'device_2'])).resolves.toMatchObject({ hubUrl: 'https://b.example:8444' });
  });

  it('when the simulator delays are given, then they are read as milliseconds', async () => {
    const options = await run(['--hub', 'https://h.example', '--sim-send-delay-ms', '2000', '--sim-delivery-delay-ms', '0']);

    expect(options).toMatchObject({ sendDelayMs: 2000, deliveryDelayMs: 0 });
  });

  it('when --radio-off is given, or SMSGW_AGENT_RADIO_OFF=1, then the simulator runs with its radio off', async () => {
    await expect(run(['--hub', 'https://h.example'])).resolves.not.toHaveProperty('radioOff');
    await expect(run(['--hub', 'https://h.example', '--radio-off'])).resolves.toMatchObject({ radioOff: true });

    context.env.SMSGW_AGENT_RADIO_OFF = '1';
    await expect(run(['--hub', 'https://h.example'])).resolves.toMatchObject({ radioOff: true });
    context.env.SMSGW_AGENT_RADIO_OFF = '0';
    await expect(run(['--hub', 'https://h.example'])).resolves.not.toHaveProperty('radioOff');
  });

  it('when --sim-network-failure names a cause, then the simulator fails every SMS with it after sending it', async () => {
    await expect(run(['--hub', 'https://h.example', '--sim-network-failure', 'OUT_OF_NETWORK'])).resolves.toMatchObject({
      networkFailure: 'OUT_OF_NETWORK',
    });
    await expect(run(['--hub', 'https://h.example'])).resolves.not.toHaveProperty('networkFailure');
  });

  it('when --sim-fail-slot names a SIM, then the simulator fails it with the cause given, while the file exists when one is given', async () => {
    await expect(run(['--hub', 'https://h.example', '--sims', '2', '--sim-fail-slot', '2'])).resolves.toMatchObject({
      simFailure: { slot: 2, cause: 'generic' },
    });
    await expect(
      run(['--hub', 'https://h.example', '--sim-fail-slot', '1', '--sim-fail-cause', 'limit', '--sim-fail-file', '/tmp/x']),
    ).resolves.toMatchObject({ simFailure: { slot: 1, cause: 'limit', whileFile: '/tmp/x' } });
    await expect(run(['--hub', 'https://h.example'])).resolves.not.toHaveProperty('simFailure');
  });

  it.each([
    [['--hub', 'https://h.example', '--sim-fail-slot', '2'], /--sim-fail-slot takes a slot from 1 to 1/],
    [['--hub', 'https://h.example', '--sim-fail-slot', '1', '--sim-fail-cause', 'rain'], /--sim-fail-cause must be one of/],
    [['--hub', 'https://h.example', '--sim-fail-cause', 'limit'], /go with --sim-fail-slot/],
    [['--hub', 'https://h.example', '--driver', 'termux', '--sim-fail-slot', '1'], /simulator only/],
    [['--hub', 'https://h.example', '--sim-network-failure', 'EXPIRED'], /--sim-network-failure must be one of/],
    [['--hub', 'https://h.example', '--driver', 'termux', '--sim-network-failure', 'OUT_OF_NETWORK'], /simulator only/],
    [['--hub', 'http://127.0.0.1:8444'], /https/],
    [['--hub', 'https://h.example', '--client', 'c'], /--device-password/],
    [['--pairing-url', 'https://h.example/v1/agent/pair?code=X', '--client', 'c', '--device-password', 'p'], /not both/],
    [['--pairing-url', 'https://h.example/v1/agent/pair'], /pairing URL/],
    [['--hub', 'https://a.example', '--pairing-url', 'https://b.example/v1/agent/pair?code=X'], /different hubs/],
    [['--hub', 'https://h.example', '--driver', 'carrier-pigeon'], /--driver/],
    [['--hub', 'https://h.example', '--driver', 'termux', '--sim-send-delay-ms', '5'], /simulator only/],
    [['--hub', 'https://h.example', '--sim-delivery-delay-ms=-1'], /milliseconds/],
    [['--hub', 'https://h.example', '--driver', 'termux', '--radio-off'], /simulator only/],
    [['--hub', 'https://h.example', '--driver', 'termux', '--sims', '2'], /simulator only/],
    [['--hub', 'https://h.example', '--sims', '0'], /1 to 4/],
    [['--hub', 'https://h.example', '--sims', '5'], /1 to 4/],
    [['--hub', 'https://h.example', '--sims', 'two'], /1 to 4/],
    [['--hub', 'https://h.example', '--sim-send-delay-ms', '1.5'], /milliseconds/],
    [['--hub', 'https://h.example', '--ca', '/nonexistent/ca.pem'], /CA certificate/],
    [['--hub', 'https://h.example', '--unknown'], /unknown/i],
    [['--hub', 'https://h.example', '--device', 'device_1', '--client', 'c', '--device-password', 'p'], /--device/],
  ])('when the flags are %j, then it is a usage error', async (argv, message) => {
    const parsing = parseCli(argv, context);

    await expect(parsing).rejects.toBeInstanceOf(UsageError);
    await expect(parsing).rejects.toThrow(message);
  });

  it('when --sims is given, or SMSGW_AGENT_SIMS, then the simulator has that many SIMs; the flag wins', async () => {
    await expect(run(['--hub', 'https://h.example'])).resolves.not.toHaveProperty('sims');
    await expect(run(['--hub', 'https://h.example', '--sims', '3'])).resolves.toMatchObject({ sims: 3 });

    context.env.SMSGW_AGENT_SIMS = '2';
    await expect(run(['--hub', 'https://h.example'])).resolves.toMatchObject({ sims: 2 });
    await expect(run(['--hub', 'https://h.example', '--sims', '4'])).resolves.toMatchObject({ sims: 4 });
    context.env.SMSGW_AGENT_SIMS = '9';
    await expect(parseCli(['--hub', 'https://h.example'], context)).rejects.toThrow(/SMSGW_AGENT_SIMS/);
  });

  it('when SMSGW_AGENT_RADIO_OFF is neither on nor off, then it is a usage error', async () => {
    context.env.SMSGW_AGENT_RADIO_OFF = 'maybe';

    await expect(parseCli(['--hub', 'https://h.example'], context)).rejects.toThrow(/SMSGW_AGENT_RADIO_OFF/);
  });

  it('when --help is given, then the command is help whatever else is there', async () => {
    await expect(parseCli(['--hub', 'http://bad', '--help'], context)).resolves.toEqual({ kind: 'help' });
  });
});

describe('exitCodeFor', () => {
  it('when the agent stops on an error, then usage and pairing problems get their documented exit codes', () => {
    expect(exitCodeFor(new UsageError('x'))).toBe(2);
    expect(exitCodeFor(new NotPairedError('x'))).toBe(2);
    expect(exitCodeFor(new DeviceChoiceError('x'))).toBe(2);
    expect(exitCodeFor(new DeviceInUseError('x'))).toBe(2);
    expect(exitCodeFor(new PairingRefusedError('x'))).toBe(3);
    expect(exitCodeFor(new DeviceUnauthorizedError('x'))).toBe(3);
    expect(exitCodeFor(new PairingError('x'))).toBe(1);
    expect(exitCodeFor(new Error('x'))).toBe(1);
  });
});
