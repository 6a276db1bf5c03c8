import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { CREDENTIALS_FILE, readCredentials, saveCredentials, type Credentials } from './credentials';
import { isErrnoCode, syncDirectory } from './durable-file';
import { DeviceInUseError, PairingError } from './errors';
import type { PairingSecret } from './pairing';

/**
 * The data directory holds one folder per device, `<data-dir>/devices/<device_id>/`, with that
 * device's `credentials.json`, `outbox/`, `done.log` and, while an agent runs it, `agent.lock`.
 * Several phones (or a new phone after an old one) can share a data directory: each keeps its
 * own credentials and outbox, and stored credentials are used only for the pairing inputs that
 * made them (their pairing keys).
 */
export const DEVICES_DIR = 'devices';
export const LOCK_FILE = 'agent.lock';
/** What an earlier version kept at the top of the data directory, for its one device. */
const LEGACY_FILES = ['outbox', 'done.log'];

export interface StoredDevice {
  deviceId: string;
  /** `<data-dir>/devices/<device_id>`. */
  dir: string;
  credentials: Credentials;
}

// A device id names a folder: nothing a hub answers may climb out of the data directory.
const DEVICE_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function deviceDir(dataDir: string, deviceId: string): string {
  if (!DEVICE_ID.test(deviceId)) throw new PairingError(`the hub gave a device id that cannot name a folder: ${deviceId}`);
  return path.join(dataDir, DEVICES_DIR, deviceId);
}

/**
 * A digest naming the pairing inputs: the hub, then the pairing code or the client id and device
 * password as the hub reads them (upper case, no spaces or dashes), so that the same inputs typed
 * differently find the same device. Stored in credentials.json instead of the secret itself.
 */
export function pairingKey(hubUrl: string, secret: PairingSecret): string {
  const loose = (value: string): string => value.toUpperCase().replace(/[\s-]/g, '');
  const what =
    'pairingCode' in secret ? `code\n${loose(secret.pairingCode)}` : `password\n${secret.clientId.trim()}\n${loose(secret.devicePassword)}`;
  return createHash('sha256')
    .update(`smsgw-agent-pairing-v1\n${new URL(hubUrl).origin}\n${what}`, 'utf8')
    .digest('hex');
}

/** Every device of the data directory that has credentials, in device id order. */
export async function listStoredDevices(dataDir: string): Promise<StoredDevice[]> {
  let names: string[];
  try {
    names = await fs.readdir(path.join(dataDir, DEVICES_DIR));
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return [];
    throw error;
  }
  const devices: StoredDevice[] = [];
  for (const name of names.sort()) {
    if (!DEVICE_ID.test(name)) continue;
    const dir = path.join(dataDir, DEVICES_DIR, name);
    const credentials = await readCredentials(dir);
    if (credentials && credentials.device_id === name) devices.push({ deviceId: name, dir, credentials });
  }
  return devices;
}

/** The stored device that these pairing inputs made on this hub, if any. */
export async function findPairedDevice(dataDir: string, hubUrl: string, secret: PairingSecret): Promise<StoredDevice | undefined> {
  const key = pairingKey(hubUrl, secret);
  const origin = new URL(hubUrl).origin;
  return (await listStoredDevices(dataDir)).find(
    (device) => sameOrigin(device.credentials.hub_url, origin) && (device.credentials.pairing_keys ?? []).includes(key),
  );
}

/** The stored devices of this hub (all of them when `hubUrl` is undefined). */
export async function storedDevicesOf(dataDir: string, hubUrl: string | undefined): Promise<StoredDevice[]> {
  const devices = await listStoredDevices(dataDir);
  return hubUrl === undefined ? devices : devices.filter((device) => sameOrigin(device.credentials.hub_url, new URL(hubUrl).origin));
}

/**
 * Stores what a pairing gave in the device's folder, remembering the pairing inputs that made it
 * (next to those of earlier pairings of the same device on the same hub).
 */
export async function saveDevice(dataDir: string, paired: Credentials, secret: PairingSecret): Promise<StoredDevice> {
  const dir = deviceDir(dataDir, paired.device_id);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const earlier = await readCredentials(dir);
  const earlierKeys = earlier && sameOrigin(earlier.hub_url, new URL(paired.hub_url).origin) ? (earlier.pairing_keys ?? []) : [];
  const credentials: Credentials = {
    ...paired,
    pairing_keys: [...new Set([...earlierKeys, pairingKey(paired.hub_url, secret)])],
  };
  await saveCredentials(dir, credentials);
  return { deviceId: paired.device_id, dir, credentials };
}

/**
 * Moves the data of an earlier version (credentials.json, outbox/ and done.log at the top of the
 * data directory) into its device's folder. Its pairing inputs are unknown: the device is used when
 * the agent starts without pairing options, and pairing options pair again. Returns the device id
 * moved, if any. Safe when two agents start at once: each move is a rename that only one wins.
 */
export async function migrateLegacyLayout(dataDir: string): Promise<string | undefined> {
  const legacy = await readCredentials(dataDir);
  if (!legacy) return undefined;
  const dir = deviceDir(dataDir, legacy.device_id);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  await adoptLegacyFiles(dataDir, dir);
  // Last: while credentials.json is at the top, a start that was cut short finishes the move.
  await moveIfThere(path.join(dataDir, CREDENTIALS_FILE), path.join(dir, CREDENTIALS_FILE));
  await syncDirectory(dataDir);
  return legacy.device_id;
}

/**
 * An outbox left at the top of the data directory without credentials (an earlier version deleted
 * them after the hub refused its token) belongs to the device that the directory pairs next, as it
 * did then; it goes into that device's folder unless the folder has an outbox of its own.
 */
export async function adoptLegacyFiles(dataDir: string, dir: string): Promise<string[]> {
  const moved: string[] = [];
  for (const name of LEGACY_FILES) {
    if (await moveIfThere(path.join(dataDir, name), path.join(dir, name))) moved.push(name);
  }
  if (moved.length > 0) await Promise.all([syncDirectory(dataDir), syncDirectory(dir)]);
  return moved;
}

/**
 * `agent.lock` in a device's folder while an agent runs that device: a second agent started for
 * the same device from the same data directory stops at once instead of taking the device's
 * connection (close code 4002) and sharing its outbox. A lock left by an agent that died is taken
 * over.
 */
export class DeviceLock {
  /** Lock files held by this process: a lock naming this pid but not in here is a former process's. */
  private static readonly held = new Set<string>();

  private constructor(private readonly file: string) {}

  static async acquire(device: StoredDevice): Promise<DeviceLock> {
    const file = path.join(device.dir, LOCK_FILE);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const handle = await fs.open(file, 'wx', 0o600);
        try {
          await handle.writeFile(`${JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() })}\n`, 'utf8');
        } finally {
          await handle.close();
        }
        DeviceLock.held.add(file);
        return new DeviceLock(file);
      } catch (error) {
        if (!isErrnoCode(error, 'EEXIST')) throw error;
      }
      const holder = await lockHolder(file);
      // A restarted container gives its agent the same pid as before: that lock is stale.
      const held = holder === process.pid ? DeviceLock.held.has(file) : holder !== undefined && isAlive(holder);
      if (held) {
        throw new DeviceInUseError(
          `device ${device.deviceId} is already run by another agent (pid ${holder ?? '?'}) from this data directory; ` +
            `if no agent runs, delete ${file}`,
        );
      }
      // Left by an agent that is gone (or unreadable): take it over.
      await fs.rm(file, { force: true });
    }
    throw new DeviceInUseError(`cannot take ${file}: other agents keep starting for device ${device.deviceId}`);
  }

  async release(): Promise<void> {
    DeviceLock.held.delete(this.file);
    await fs.rm(this.file, { force: true });
  }
}

async function lockHolder(file: string): Promise<number | undefined> {
  try {
    const { pid } = JSON.parse(await fs.readFile(file, 'utf8')) as { pid?: unknown };
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return isErrnoCode(error, 'EPERM');
  }
}

async function moveIfThere(from: string, to: string): Promise<boolean> {
  try {
    await fs.rename(from, to);
    return true;
  } catch (error) {
    // ENOENT: nothing to move, or another agent moved it first. EEXIST/ENOTEMPTY: the device's
    // folder already has its own; the old one stays where it is.
    if (isErrnoCode(error, 'ENOENT') || isErrnoCode(error, 'EEXIST') || isErrnoCode(error, 'ENOTEMPTY')) return false;
    throw error;
  }
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}
