import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import pino, { type Logger } from 'pino';
import { HubConnection, type ConnectionTarget } from './connection';
import { deleteCredentials, loadCredentials, saveCredentials, wsUrlOf, type Credentials } from './credentials';
import type { Driver, DriverName } from './drivers/driver';
import { SimulatorDriver } from './drivers/simulator.driver';
import { TermuxDriver } from './drivers/termux.driver';
import { DeviceUnauthorizedError, NotPairedError } from './errors';
import { Outbox } from './outbox';
import { pair, type PairingSecret } from './pairing';
import type { Sms } from './protocol';
import { SendLoop } from './send-loop';

export interface StartAgentOptions {
  /** Hub base URL (https), e.g. https://127.0.0.1:8444. */
  hubUrl: string;
  /** Where credentials.json, the outbox and done.log live. */
  dataDir: string;
  /** A PEM CA certificate to trust in addition to Node's default CAs. */
  ca?: string;
  /** What to pair with when there are no credentials for this hub, or they are refused. */
  pairing?: PairingSecret;
  /** Sent as `agent.name` when pairing. */
  deviceName?: string;
  /** Default 'simulator'. */
  driver?: DriverName;
  /** Simulator: time between `sent` and `delivered` (default 300 ms). */
  deliveryDelayMs?: number;
  /** Pause between accepting an SMS (ack) and handing it to the driver (default 0). */
  sendDelayMs?: number;
  /** Print one JSON line {message_id, to, text} on `stdout` for each SMS handed to the driver. */
  logJson?: boolean;
  /** Where the --log-json lines go (default process.stdout). */
  stdout?: NodeJS.WritableStream;
  /** Default: pino JSON on stderr. */
  logger?: Logger;
  /** Directories searched for termux-sms-send (default $PATH). */
  searchPath?: string;
  /** Source of jitter for the reconnection backoff (default Math.random). */
  random?: () => number;
  /** How long a report waits for its report_ack before it is sent again (default 10 s). */
  reportResendMs?: number;
}

export interface Agent {
  readonly deviceId: string;
  /**
   * Settles when the agent has stopped: resolves after stop(), rejects with the cause when it
   * stopped by itself (token refused and no pairing to fall back on, device replaced).
   */
  readonly done: Promise<void>;
  /** Closes the socket, lets the SMS being sent finish, and flushes the outbox. */
  stop(): Promise<void>;
}

export const AGENT_NAME = 'smsgw-agent';
export const AGENT_VERSION = readVersion();

/**
 * Starts the agent: opens the outbox (applying the restart rules), pairs if needed, then
 * connects and sends. Throws before connecting when something is missing (credentials, the
 * termux-sms-send binary) or pairing fails.
 */
export async function startAgent(options: StartAgentOptions): Promise<Agent> {
  const logger = options.logger ?? pino({ name: AGENT_NAME }, pino.destination(2));
  const { dataDir } = options;
  const hubUrl = new URL(options.hubUrl).origin;
  const ca = options.ca ? [...tls.rootCertificates, options.ca] : undefined;
  const driverName = options.driver ?? 'simulator';
  const stdout = options.stdout ?? process.stdout;

  const driver = await createDriver(driverName, options);
  await fsp.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const outbox = await Outbox.open(dataDir, { deliveryReports: driver.reportsDelivery });
  if (outbox.corruptFiles.length > 0) {
    logger.warn({ files: outbox.corruptFiles }, 'unreadable outbox files moved aside as .corrupt');
  }
  const recovery = await outbox.recover();
  if (recovery.failed.length > 0) {
    logger.warn({ message_ids: recovery.failed }, 'SMS interrupted while sending reported failed, not sent again');
  }

  // Set when a pairing has not yet been followed by a hello: a 401 then means pairing again
  // would not help, and would loop.
  let pairedSinceHello = false;
  const pairAndSave = async (): Promise<Credentials> => {
    if (!options.pairing) {
      throw new NotPairedError(
        `no credentials for ${hubUrl} in ${dataDir}: pair with --pairing-url, or --client and --device-password`,
      );
    }
    const result = await pair({
      hubUrl,
      secret: options.pairing,
      agent: { name: options.deviceName ?? AGENT_NAME, version: AGENT_VERSION, driver: driverName },
      ...(ca ? { ca } : {}),
    });
    const credentials: Credentials = { hub_url: hubUrl, ...result };
    await saveCredentials(dataDir, credentials);
    pairedSinceHello = true;
    logger.info({ device_id: result.device_id }, 'paired with the hub');
    return credentials;
  };

  let credentials = await loadCredentials(dataDir, hubUrl);
  if (credentials) {
    logger.info({ device_id: credentials.device_id }, 'using stored credentials');
  } else {
    credentials = await pairAndSave();
  }
  const targetOf = (c: Credentials): ConnectionTarget => ({ wsUrl: wsUrlOf(c), token: c.device_token });

  const printHandOver = (sms: Sms): void => {
    if (options.logJson) {
      stdout.write(`${JSON.stringify({ message_id: sms.message_id, to: sms.to, text: sms.text })}\n`);
    }
  };

  const sendLoop = new SendLoop({
    outbox,
    driver,
    logger,
    sendDelayMs: options.sendDelayMs ?? 0,
    onHandOver: printHandOver,
    // The connection is built below; reports only come once SMS are enqueued, after that.
    onReport: (report) => connection.sendReport(report),
  });

  let resolveDone!: () => void;
  let rejectDone!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // Marks the promise handled: a caller that only uses stop() must not crash on a rejection.
  done.catch(() => undefined);

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      await sendLoop.stop();
      await connection.stop();
      await driver.close();
      await outbox.flush();
      logger.info('agent stopped');
    })();
    return stopping;
  };

  const connection = new HubConnection({
    target: targetOf(credentials),
    ...(ca ? { ca } : {}),
    outbox,
    logger,
    ...(options.random ? { random: options.random } : {}),
    ...(options.reportResendMs !== undefined ? { reportResendMs: options.reportResendMs } : {}),
    onAccepted: (sms) => sendLoop.enqueue(sms),
    onHello: () => {
      pairedSinceHello = false;
    },
    onUnauthorized: async () => {
      await deleteCredentials(dataDir);
      if (!options.pairing || pairedSinceHello) {
        throw new DeviceUnauthorizedError(
          options.pairing
            ? 'the hub refused the token it has just issued (401)'
            : 'the hub refused the device token (401) and the stored credentials were deleted: ' +
                'pair again with --pairing-url, or --client and --device-password',
        );
      }
      logger.warn('the hub refused the device token (401); pairing again');
      return targetOf(await pairAndSave());
    },
    onFatal: (error) => {
      logger.error({ reason: error instanceof Error ? error.message : String(error) }, 'agent stopping');
      void shutdown().then(() => rejectDone(error), rejectDone);
    },
  });

  for (const sms of recovery.toSend) sendLoop.enqueue(sms);
  connection.start();
  logger.info({ hub: hubUrl, driver: driverName, device_id: credentials.device_id }, 'agent started');

  return {
    deviceId: credentials.device_id,
    done,
    stop: async () => {
      await shutdown();
      resolveDone();
    },
  };
}

async function createDriver(name: DriverName, options: StartAgentOptions): Promise<Driver> {
  if (name === 'termux') {
    return TermuxDriver.create({ searchPath: options.searchPath ?? process.env.PATH ?? '' });
  }
  return new SimulatorDriver(options.deliveryDelayMs !== undefined ? { deliveryDelayMs: options.deliveryDelayMs } : {});
}

function readVersion(): string {
  // package.json sits one level above both src/ (tests) and dist/ (the built agent).
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? '0.0.0';
}
