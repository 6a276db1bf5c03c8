// Over 300 lines: the agent's start-up is one sequence (driver, stored device or pairing, the lock,
// outbox recovery, the connection) whose failures each undo what came before; split, each step
// would need the others' state passed back and forth.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import tls from 'node:tls';
import pino, { type Logger } from 'pino';
import { HubConnection, type ConnectionTarget } from './connection';
import { deleteCredentials, wsUrlOf, type Credentials } from './credentials';
import {
  DEVICES_DIR,
  DeviceLock,
  adoptLegacyFiles,
  findPairedDevice,
  migrateLegacyLayout,
  saveDevice,
  storedDevicesOf,
  type StoredDevice,
} from './data-dir';
import { createDriver } from './drivers/create-driver';
import type { DriverName } from './drivers/driver';
import type { SimFailure } from './drivers/simulator.driver';
import { DeviceChoiceError, DeviceUnauthorizedError, NotPairedError } from './errors';
import { Inbox, type Arrival } from './inbox';
import { Outbox } from './outbox';
import { pair, type PairingSecret } from './pairing';
import { simOf, type ReceivedSms, type SimulateReceivedFrame, type Sms, type SmsErrorCode } from './protocol';
import { LogRing } from './log-ring';
import { PhoneLink } from './phone-link';
import { openForSending, sealArrival } from './encrypted-texts';
import { SendLoop } from './send-loop';
import { SendRecord } from './send-record';
import { receivingSim } from './sims';
import { SimulatedBattery, simulatedTelemetry, type Telemetry } from './telemetry';

export interface StartAgentOptions {
  /** Hub base URL (https), e.g. https://127.0.0.1:8444. */
  hubUrl: string;
  /** Holds a folder per device, `devices/<device_id>/`, with its credentials.json, outbox/ and done.log. */
  dataDir: string;
  /** A PEM CA certificate to trust in addition to Node's default CAs. */
  ca?: string;
  /**
   * What to pair with. Credentials stored by an earlier pairing with these same inputs (on this
   * hub) are used instead; other stored devices are left alone.
   */
  pairing?: PairingSecret;
  /** Without `pairing`: which stored device to run when several are paired with this hub. */
  deviceId?: string;
  /** Sent as `agent.name` when pairing. */
  deviceName?: string;
  /** Default 'simulator'. */
  driver?: DriverName;
  /** Simulator: time between `sent` and `delivered` (default 300 ms). */
  deliveryDelayMs?: number;
  /** Simulator: the radio is off, every send fails at once with OUT_OF_NETWORK and `not_sent`. */
  radioOff?: boolean;
  /** Simulator: how many SIMs the phone has, slots 1..n (default 1; protocol 4). */
  sims?: number;
  /** Simulator: every SMS is sent, then the network reports it failed with this cause. */
  networkFailure?: SmsErrorCode;
  /** Simulator: a SIM that fails every send at once, not sent (while its file exists, when given). */
  simFailure?: SimFailure;
  /** Protocol 8: the end-to-end passphrase (encrypted-texts.ts); it never leaves the phone. */
  passphrase?: string;
  /** Pause between accepting an SMS (ack) and handing it to the driver (default 0). */
  sendDelayMs?: number;
  /** Print one JSON line {message_id, to, text} on `stdout` for each SMS handed to the driver (none with `radioOff`). */
  logJson?: boolean;
  /** Where the --log-json lines go (default process.stdout). */
  stdout?: NodeJS.WritableStream;
  /** Default: pino JSON on stderr, and into the ring of lines the hub may ask for (protocol 6). */
  logger?: Logger;
  /** The ring of recent lines a protocol 6 hub may ask for; give it with `logger` when the logger writes into it. */
  logRing?: LogRing;
  /** Simulator: the battery's level in percent (default 80; protocol 6 telemetry). */
  battery?: number;
  /** Simulator: the phone is not plugged in (default: it charges). */
  unplugged?: boolean;
  /** Simulator: points of battery lost per minute while unplugged (default 0). */
  batteryDrainPerMinute?: number;
  /** How often the phone's state is looked at for a significant change, and the longest wait between two telemetry frames. */
  telemetrySampleMs?: number;
  telemetryIntervalMs?: number;
  /** Directories searched for termux-sms-send (default $PATH). */
  searchPath?: string;
  /** Source of jitter for the reconnection backoff (default Math.random). */
  random?: () => number;
  /** How long a report waits for its report_ack before it is sent again (default 10 s). */
  reportResendMs?: number;
  /** How often the digest of the send record goes to a hub of protocol 7 (default 5 minutes; also after each hello). */
  digestIntervalMs?: number;
  /** How long an SMS stays in the send record after its hand-over (default 6 hours). */
  recordKeepMs?: number;
  /** Simulator: the share of report frames lost in transit (0 to 1), still kept in the send record. */
  dropReports?: number;
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
 * Starts the agent: finds the stored device that belongs to the pairing inputs (or pairs), locks
 * its folder, opens its outbox (applying the restart rules), then connects and sends. Throws
 * before connecting when something is missing (credentials, the termux-sms-send binary), the
 * device is already run from this data directory, or pairing fails.
 */
export async function startAgent(options: StartAgentOptions): Promise<Agent> {
  // The hub may ask for the recent log (protocol 6): the agent's own lines go to a ring too, redacted.
  const ring = options.logRing ?? new LogRing();
  const logger =
    options.logger ?? pino({ name: AGENT_NAME }, pino.multistream([{ stream: pino.destination(2) }, { stream: ring.stream() }]));
  const { dataDir } = options;
  const hubUrl = new URL(options.hubUrl).origin;
  const ca = options.ca ? [...tls.rootCertificates, options.ca] : undefined;
  const driverName = options.driver ?? 'simulator';
  const stdout = options.stdout ?? process.stdout;

  const driver = await createDriver(driverName, options);
  await fsp.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const migrated = await migrateLegacyLayout(dataDir);
  if (migrated) logger.info({ device_id: migrated }, `moved the data of an earlier version into ${DEVICES_DIR}/${migrated}`);

  // Set when a pairing has not yet been followed by a hello: a 401 then means pairing again
  // would not help, and would loop.
  let pairedSinceHello = false;
  const pairAndSave = async (): Promise<StoredDevice> => {
    if (!options.pairing) {
      throw new NotPairedError(`no credentials for ${hubUrl} in ${dataDir}: pair with --pairing-url, or --client and --device-password`);
    }
    const result = await pair({
      hubUrl,
      secret: options.pairing,
      agent: { name: options.deviceName ?? AGENT_NAME, version: AGENT_VERSION, driver: driverName },
      ...(ca ? { ca } : {}),
    });
    const paired = await saveDevice(dataDir, { hub_url: hubUrl, ...result }, options.pairing);
    const adopted = await adoptLegacyFiles(dataDir, paired.dir);
    if (adopted.length > 0) logger.info({ device_id: paired.deviceId, files: adopted }, 'took over the outbox of an earlier version');
    pairedSinceHello = true;
    logger.info({ device_id: result.device_id }, 'paired with the hub');
    return paired;
  };

  let device = await storedDevice(options, hubUrl);
  if (device) {
    logger.info({ device_id: device.deviceId }, 'using stored credentials');
  } else {
    device = await pairAndSave();
  }
  const lock = await DeviceLock.acquire(device);
  let outbox: Outbox;
  let inbox: Inbox;
  let record: SendRecord;
  let recovery: Awaited<ReturnType<Outbox['recover']>>;
  try {
    record = await SendRecord.open(device.dir, options.recordKeepMs !== undefined ? { keepMs: options.recordKeepMs } : {});
    outbox = await Outbox.open(device.dir, { deliveryReports: driver.reportsDelivery, record });
    if (outbox.corruptFiles.length > 0) {
      logger.warn({ files: outbox.corruptFiles }, 'unreadable outbox files moved aside as .corrupt');
    }
    recovery = await outbox.recover();
    inbox = await Inbox.open(device.dir);
    if (inbox.corruptFiles.length > 0) logger.warn({ files: inbox.corruptFiles }, 'unreadable inbox files moved aside as .corrupt');
  } catch (error) {
    await lock.release();
    throw error;
  }
  if (recovery.failed.length > 0) {
    logger.warn({ message_ids: recovery.failed }, 'SMS interrupted while sending reported failed, not sent again');
  }
  if (recovery.expired.length > 0) {
    logger.warn({ message_ids: recovery.expired }, 'SMS that expired while the agent was stopped reported failed, not sent');
  }
  const deviceId = device.deviceId;
  const deviceFolder = device.dir;

  const targetOf = (c: Credentials): ConnectionTarget => ({ wsUrl: wsUrlOf(c), token: c.device_token });

  const printHandOver = (sms: Sms): void => {
    // A line stands for an SMS that may leave the phone; with the radio off none does.
    if (options.logJson && !options.radioOff && !driver.failsUnsent?.(sms)) {
      stdout.write(`${JSON.stringify({ message_id: sms.message_id, to: sms.to, text: sms.text })}\n`);
    }
  };

  const sendLoop = new SendLoop({
    outbox,
    driver,
    logger,
    sendDelayMs: options.sendDelayMs ?? 0,
    onHandOver: printHandOver,
    open: (sms) => openForSending(sms, options.passphrase),
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
      await record.flush();
      await inbox.flush();
      await lock.release();
      logger.info('agent stopped');
    })();
    return stopping;
  };

  const battery = new SimulatedBattery(options.battery ?? 80, !options.unplugged, options.batteryDrainPerMinute ?? 0);
  const telemetry = (): Telemetry =>
    driverName === 'simulator'
      ? simulatedTelemetry(
          battery,
          driver.sims.map((sim) => sim.slot),
          AGENT_VERSION,
        )
      : // Termux tells nothing of the battery or the signal without more Termux:API calls: versions only.
        { charging: false, sims: [], app_version: AGENT_VERSION, android_version: 'termux', risks: [] };
  const phone = new PhoneLink({
    telemetry,
    ring,
    logger,
    dir: deviceFolder,
    ...(options.telemetrySampleMs !== undefined ? { sampleMs: options.telemetrySampleMs } : {}),
    ...(options.telemetryIntervalMs !== undefined ? { intervalMs: options.telemetryIntervalMs } : {}),
  });

  const connection = new HubConnection({
    target: targetOf(device.credentials),
    phone,
    ...(ca ? { ca } : {}),
    outbox,
    inbox,
    driver: driverName,
    sims: driver.sims,
    ...(driver.simulatesReceiving ? { onSimulateReceived: (frame: SimulateReceivedFrame) => void simulateReceived(frame) } : {}),
    logger,
    ...(options.random ? { random: options.random } : {}),
    ...(options.reportResendMs !== undefined ? { reportResendMs: options.reportResendMs } : {}),
    record,
    ...(options.digestIntervalMs !== undefined ? { digestIntervalMs: options.digestIntervalMs } : {}),
    ...(options.dropReports ? { dropReports: options.dropReports } : {}),
    onAccepted: (sms) => sendLoop.enqueue(sms),
    onHello: () => {
      pairedSinceHello = false;
    },
    onUnauthorized: async () => {
      await deleteCredentials(deviceFolder);
      if (!options.pairing || pairedSinceHello) {
        throw new DeviceUnauthorizedError(
          options.pairing
            ? 'the hub refused the token it has just issued (401)'
            : 'the hub refused the device token (401) and the stored credentials were deleted: ' +
                'pair again with --pairing-url, or --client and --device-password',
        );
      }
      logger.warn('the hub refused the device token (401); pairing again');
      const again = await pairAndSave();
      if (again.deviceId !== deviceId) {
        // This agent's outbox is device_id's: it must not go on as another device.
        throw new DeviceUnauthorizedError(
          `the hub refused device ${deviceId}'s token and the pairing inputs now give device ${again.deviceId}; start the agent again`,
        );
      }
      return targetOf(again.credentials);
    },
    onFatal: (error) => {
      logger.error({ reason: error instanceof Error ? error.message : String(error) }, 'agent stopping');
      void shutdown().then(() => rejectDone(error), rejectDone);
    },
  });

  // Protocol 3: on disk first, then to the hub (and again after each reconnect until received_ack).
  const receiveSms = async (arrival: Arrival): Promise<void> => {
    let entry: ReceivedSms;
    try {
      entry = await inbox.receive(sealArrival(arrival, options.passphrase));
    } catch (error) {
      logger.error({ err: error, from: arrival.from }, 'could not write a received SMS to the inbox');
      return;
    }
    logger.info({ received_id: entry.received_id, from: entry.from }, 'SMS received');
    connection.sendReceived(entry);
  };
  // A slot this phone lacks arrives on slot 1: the hub may not know the phone's SIMs.
  const simulateReceived = ({ from, text, sim }: SimulateReceivedFrame): Promise<void> =>
    receiveSms({ from, text, ...simOf(receivingSim(sim, driver.sims)) });

  for (const sms of recovery.toSend) sendLoop.enqueue(sms);
  // Sent before the restart, their delivery report not yet come: it still comes (PROTOCOL.md §3).
  const awaitingDelivery = outbox.awaitingDelivery();
  if (awaitingDelivery.length > 0) {
    logger.info(
      { message_ids: awaitingDelivery.map((sms) => sms.message_id) },
      'waiting for the delivery reports of SMS sent before the restart',
    );
    sendLoop.resumeDeliveries(awaitingDelivery);
  }
  connection.start();
  logger.info({ hub: hubUrl, driver: driverName, device_id: deviceId, ...(options.radioOff ? { radio_off: true } : {}) }, 'agent started');

  return {
    deviceId,
    done,
    stop: async () => {
      await shutdown();
      resolveDone();
    },
  };
}

/**
 * The stored device to run: with pairing inputs, the one they paired before (none: pair); without,
 * the one named by `deviceId`, or the only one paired with this hub.
 */
async function storedDevice(options: StartAgentOptions, hubUrl: string): Promise<StoredDevice | undefined> {
  if (options.pairing) return findPairedDevice(options.dataDir, hubUrl, options.pairing);
  const devices = await storedDevicesOf(options.dataDir, hubUrl);
  if (options.deviceId !== undefined) {
    const chosen = devices.find((device) => device.deviceId === options.deviceId);
    if (!chosen) {
      throw new NotPairedError(`device ${options.deviceId} is not paired with ${hubUrl} in ${options.dataDir}`);
    }
    return chosen;
  }
  if (devices.length > 1) {
    throw new DeviceChoiceError(
      `${devices.length} devices are paired with ${hubUrl} in ${options.dataDir} ` +
        `(${devices.map((device) => device.deviceId).join(', ')}): choose one with --device, ` +
        'or give its --pairing-url, or --client and --device-password',
    );
  }
  return devices[0];
}

function readVersion(): string {
  // package.json sits one level above both src/ (tests) and dist/ (the built agent).
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
    version?: string;
  };
  return manifest.version ?? '0.0.0';
}
