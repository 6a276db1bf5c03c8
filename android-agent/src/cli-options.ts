// Over 300 lines: every option of the agent's command line, its environment variables and their checks, in one pass.
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { StartAgentOptions } from './agent';
import { readCredentials } from './credentials';
import { storedDevicesOf } from './data-dir';
import { passphraseOf } from './encrypted-texts';
import { isErrnoCode } from './durable-file';
import type { DriverName } from './drivers/driver';
import { DeviceChoiceError, DeviceInUseError, DeviceUnauthorizedError, NotPairedError, PairingRefusedError, UsageError } from './errors';
import { parsePairingUrl, type PairingSecret } from './pairing';
import type { SmsErrorCode } from './protocol';
import { MAX_SIMULATED_SIMS } from './sims';
import { SIM_FAIL_ERRORS, type SimFailCause, type SimFailure } from './drivers/simulator.driver';
import { telemetryOptions } from './cli-telemetry';
import { envFlag, milliseconds, positiveMs, ratio } from './cli-values';

/** The causes `--sim-network-failure` may pretend the network gave. */
const NETWORK_FAILURES = ['OUT_OF_NETWORK', 'INSUFFICIENT_CREDIT', 'BLACKLISTED', 'INVALID_NUMBER'] as const;

/** The exit code of the CLI for an error that stopped the agent (listed in cli-help.ts). */
export function exitCodeFor(error: unknown): number {
  if (
    error instanceof UsageError ||
    error instanceof NotPairedError ||
    error instanceof DeviceChoiceError ||
    error instanceof DeviceInUseError
  ) {
    return 2;
  }
  if (error instanceof PairingRefusedError || error instanceof DeviceUnauthorizedError) return 3;
  return 1;
}

/** Options of startAgent that come from the command line. */
export type CliAgentOptions = Pick<
  StartAgentOptions,
  | 'hubUrl'
  | 'dataDir'
  | 'ca'
  | 'pairing'
  | 'deviceId'
  | 'deviceName'
  | 'driver'
  | 'deliveryDelayMs'
  | 'sendDelayMs'
  | 'radioOff'
  | 'networkFailure'
  | 'sims'
  | 'logJson'
  | 'dropReports'
  | 'digestIntervalMs'
  | 'battery'
  | 'unplugged'
  | 'batteryDrainPerMinute'
  | 'telemetrySampleMs'
  | 'passphrase'
>;

export type CliCommand = { kind: 'help' } | { kind: 'run'; options: CliAgentOptions };

/** What the command line is read against; the CLI passes the process's own. */
export interface CliContext {
  env: NodeJS.ProcessEnv;
  homeDir: string;
  /** Where `.stack/dev.json` is looked for. */
  repoRoot: string;
}

/** `.stack/dev.json`, written by the local stack. */
interface StackFile {
  hubUrl?: string;
  caFile?: string;
}

const DRIVERS: readonly DriverName[] = ['simulator', 'termux'];

/** Reads the command line into agent options; throws UsageError for anything wrong. */
export async function parseCli(argv: string[], context: CliContext): Promise<CliCommand> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        driver: { type: 'string' },
        client: { type: 'string' },
        'device-password': { type: 'string' },
        'pairing-url': { type: 'string' },
        device: { type: 'string' },
        hub: { type: 'string' },
        ca: { type: 'string' },
        'data-dir': { type: 'string' },
        name: { type: 'string' },
        'log-json': { type: 'boolean' },
        'sim-send-delay-ms': { type: 'string' },
        'sim-delivery-delay-ms': { type: 'string' },
        'radio-off': { type: 'boolean' },
        'sim-network-failure': { type: 'string' },
        sims: { type: 'string' },
        'sim-fail-slot': { type: 'string' },
        'sim-fail-cause': { type: 'string' },
        'sim-fail-file': { type: 'string' },
        'sim-drop-reports': { type: 'string' },
        'digest-interval-ms': { type: 'string' },
        'sim-battery': { type: 'string' },
        'sim-unplugged': { type: 'boolean' },
        'sim-battery-drain': { type: 'string' },
        'telemetry-sample-ms': { type: 'string' },
        'passphrase-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { kind: 'help' };

  const driver = values.driver ?? 'simulator';
  if (!isDriverName(driver)) throw new UsageError(`--driver must be one of ${DRIVERS.join(', ')}`);

  const { pairing, pairingHub } = pairingOf(values['pairing-url'], values.client, values['device-password']);
  if (values.device !== undefined && pairing) {
    throw new UsageError('--device chooses among stored devices: give it without pairing options');
  }
  const dataDir = path.resolve(values['data-dir'] ?? context.env.SMSGW_AGENT_DIR ?? path.join(context.homeDir, '.smsgw-agent'));
  const stack = await readStackFile(path.join(context.repoRoot, '.stack', 'dev.json'));

  let hubUrl: string | undefined;
  if (values.hub !== undefined) {
    hubUrl = httpsOrigin(values.hub, '--hub');
    if (pairingHub && pairingHub !== hubUrl) {
      throw new UsageError(`--hub ${hubUrl} and the pairing URL (${pairingHub}) point at different hubs`);
    }
  } else if (pairingHub) {
    hubUrl = pairingHub;
  } else if (stack?.hubUrl) {
    hubUrl = httpsOrigin(stack.hubUrl, 'hubUrl of .stack/dev.json');
  } else {
    // On a phone there is no dev.json: the hub of an earlier pairing is the one to go back to.
    hubUrl = await storedHub(dataDir, values.device);
  }
  if (!hubUrl) {
    throw new UsageError(
      `no hub address: pass --hub <https url> or --pairing-url, or start the local stack, ` +
        `which writes ${path.join(context.repoRoot, '.stack', 'dev.json')}`,
    );
  }

  const caFile = values.ca ?? stack?.caFile;
  const ca = caFile === undefined ? undefined : await readCa(path.resolve(caFile));

  const sendDelayMs = milliseconds(values['sim-send-delay-ms'], '--sim-send-delay-ms');
  const deliveryDelayMs = milliseconds(values['sim-delivery-delay-ms'], '--sim-delivery-delay-ms');
  if (driver !== 'simulator' && (sendDelayMs !== undefined || deliveryDelayMs !== undefined)) {
    throw new UsageError('--sim-send-delay-ms and --sim-delivery-delay-ms go with --driver simulator only');
  }
  const radioOff = values['radio-off'] ?? envFlag(context.env.SMSGW_AGENT_RADIO_OFF, 'SMSGW_AGENT_RADIO_OFF');
  if (driver !== 'simulator' && radioOff) {
    // A real phone's radio is what it is: pretending it is off would fail SMS it could send.
    throw new UsageError('--radio-off (or SMSGW_AGENT_RADIO_OFF) goes with --driver simulator only');
  }
  const networkFailure = values['sim-network-failure'];
  if (networkFailure !== undefined && !(NETWORK_FAILURES as readonly string[]).includes(networkFailure)) {
    throw new UsageError(`--sim-network-failure must be one of ${NETWORK_FAILURES.join(', ')}`);
  }
  if (driver !== 'simulator' && networkFailure !== undefined) {
    throw new UsageError('--sim-network-failure goes with --driver simulator only');
  }
  const sims = simCount(values.sims ?? context.env.SMSGW_AGENT_SIMS);
  if (driver !== 'simulator' && sims !== undefined) {
    // Termux cannot list a phone's SIMs: pretending a number would refuse SMS the phone could send.
    throw new UsageError('--sims (or SMSGW_AGENT_SIMS) goes with --driver simulator only');
  }

  const simFailure = simFailureOf(values['sim-fail-slot'], values['sim-fail-cause'], values['sim-fail-file'], sims ?? 1);
  if (driver !== 'simulator' && simFailure) throw new UsageError('--sim-fail-slot goes with --driver simulator only');
  const dropReports = ratio(values['sim-drop-reports'] ?? context.env.SMSGW_AGENT_SIM_DROP_REPORTS);
  if (driver !== 'simulator' && dropReports !== undefined) {
    throw new UsageError('--sim-drop-reports (or SMSGW_AGENT_SIM_DROP_REPORTS) goes with --driver simulator only');
  }
  const digestIntervalMs = positiveMs(values['digest-interval-ms'] ?? context.env.SMSGW_AGENT_DIGEST_INTERVAL_MS, '--digest-interval-ms');
  const { battery, unplugged, drain, telemetrySampleMs } = telemetryOptions(values, context.env, driver);
  const passphrase = await passphraseOf(values['passphrase-file']);

  return {
    kind: 'run',
    options: {
      hubUrl,
      dataDir,
      driver,
      logJson: values['log-json'] ?? false,
      ...(ca !== undefined ? { ca } : {}),
      ...(pairing ? { pairing } : {}),
      ...(values.device !== undefined ? { deviceId: values.device } : {}),
      ...(values.name !== undefined ? { deviceName: values.name } : {}),
      ...(sendDelayMs !== undefined ? { sendDelayMs } : {}),
      ...(deliveryDelayMs !== undefined ? { deliveryDelayMs } : {}),
      ...(radioOff ? { radioOff } : {}),
      ...(networkFailure !== undefined ? { networkFailure: networkFailure as SmsErrorCode } : {}),
      ...(sims !== undefined ? { sims } : {}),
      ...(simFailure ? { simFailure } : {}),
      ...(dropReports ? { dropReports } : {}),
      ...(digestIntervalMs !== undefined ? { digestIntervalMs } : {}),
      ...(battery !== undefined ? { battery } : {}),
      ...(unplugged ? { unplugged } : {}),
      ...(drain !== undefined ? { batteryDrainPerMinute: drain } : {}),
      ...(telemetrySampleMs !== undefined ? { telemetrySampleMs } : {}),
      ...(passphrase !== undefined ? { passphrase } : {}),
    },
  };
}

/** `--sim-fail-slot`, `--sim-fail-cause` and `--sim-fail-file` read together (the last two need the first). */
function simFailureOf(slot: string | undefined, cause: string | undefined, file: string | undefined, sims: number): SimFailure | undefined {
  if (slot === undefined) {
    if (cause !== undefined || file !== undefined) throw new UsageError('--sim-fail-cause and --sim-fail-file go with --sim-fail-slot');
    return undefined;
  }
  const n = Number(slot);
  if (!/^[0-9]+$/.test(slot) || n < 1 || n > sims)
    throw new UsageError(`--sim-fail-slot takes a slot from 1 to ${sims}, not ${JSON.stringify(slot)}`);
  const causes = Object.keys(SIM_FAIL_ERRORS);
  if (cause !== undefined && !causes.includes(cause)) throw new UsageError(`--sim-fail-cause must be one of ${causes.join(', ')}`);
  return { slot: n, cause: (cause ?? 'generic') as SimFailCause, ...(file !== undefined ? { whileFile: path.resolve(file) } : {}) };
}

function pairingOf(
  pairingUrl: string | undefined,
  clientId: string | undefined,
  devicePassword: string | undefined,
): { pairing?: PairingSecret; pairingHub?: string } {
  if (pairingUrl !== undefined) {
    if (clientId !== undefined || devicePassword !== undefined) {
      throw new UsageError('give either --pairing-url or --client with --device-password, not both');
    }
    try {
      const { hubUrl, pairingCode } = parsePairingUrl(pairingUrl);
      return { pairing: { pairingCode }, pairingHub: hubUrl };
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  if ((clientId === undefined) !== (devicePassword === undefined)) {
    throw new UsageError('--client and --device-password go together');
  }
  if (clientId !== undefined && devicePassword !== undefined) {
    return { pairing: { clientId, devicePassword } };
  }
  return {};
}

/** The hub of the stored devices (or of the chosen one), also in an earlier version's layout. */
async function storedHub(dataDir: string, deviceId: string | undefined): Promise<string | undefined> {
  const devices = (await storedDevicesOf(dataDir, undefined)).filter((device) => deviceId === undefined || device.deviceId === deviceId);
  const legacy = await readCredentials(dataDir);
  const hubs = [...devices.map((device) => device.credentials.hub_url), ...(legacy ? [legacy.hub_url] : [])];
  const origins = [...new Set(hubs.map((hub) => httpsOrigin(hub, `the hub of the stored credentials in ${dataDir}`)))];
  if (origins.length > 1) {
    throw new UsageError(`devices paired with several hubs are stored in ${dataDir} (${origins.join(', ')}): choose one with --hub`);
  }
  return origins[0];
}

async function readStackFile(file: string): Promise<StackFile | undefined> {
  let content: string;
  try {
    content = await fs.readFile(file, 'utf8');
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return undefined;
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    throw new UsageError(`${file} is not valid JSON`);
  }
  if (typeof value !== 'object' || value === null) throw new UsageError(`${file} is not a JSON object`);
  const { hubUrl, caFile } = value as Record<string, unknown>;
  return {
    ...(typeof hubUrl === 'string' ? { hubUrl } : {}),
    ...(typeof caFile === 'string' ? { caFile } : {}),
  };
}

async function readCa(file: string): Promise<string> {
  let pem: string;
  try {
    pem = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the CA certificate ${file}: ${(error as Error).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new UsageError(`${file} is not a PEM certificate`);
  }
  return pem;
}

function httpsOrigin(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what} is not a URL: ${value}`);
  }
  // Everything between agent and hub travels over TLS (PROTOCOL.md).
  if (url.protocol !== 'https:') throw new UsageError(`${what} must be an https URL: ${value}`);
  return url.origin;
}

/** The simulator's number of SIMs, 1 to MAX_SIMULATED_SIMS; unset or empty: the default. */
function simCount(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > MAX_SIMULATED_SIMS) {
    throw new UsageError(
      `--sims (or SMSGW_AGENT_SIMS) takes a number of SIMs from 1 to ${MAX_SIMULATED_SIMS}, not ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

function isDriverName(value: string): value is DriverName {
  return (DRIVERS as readonly string[]).includes(value);
}
