import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { AppError } from '@smsgw/platform';
import type { devicehub } from '@smsgw/proto';
import type { DeviceChange } from '../live/device-events';
import { accountVerified, requireVerifiedAccount } from './account-verification.use-case';
import type { Upstreams } from './upstreams';

export interface ApkInfo {
  size: number;
  sha256: string;
}

/** A phone just added: its pairing secrets, shown only now. */
export interface AddedPhone {
  deviceId: string;
  name: string;
  password: string;
  pairingUrl: string;
  expiresAt: string;
  /** A new pairing of a phone added before. */
  rotated?: boolean;
}

/** A phone's row: the phone, its queue and what it sent today. */
export interface PhoneRow {
  device: devicehub.Device__Output;
  queued: number;
  sentToday: number;
}

/** What the phones' use cases reach: the hub and the message service, and the APK this server offers (absent: none). */
export interface PhonesDeps {
  up: Upstreams;
  apkFile?: string;
}

/** The Phones page: the client's phones and the app to install on them (undefined when this server has no APK). */
export interface PhonesList {
  phones: PhoneRow[];
  apk: ApkInfo | undefined;
  /** Whether the account is verified: phones are added and paired only then. */
  accountVerified: boolean;
  /** The settings for all phones (offline warning, SIM health thresholds). */
  fleet: devicehub.FleetSettings__Output;
}

let apkCache: { key: string; info: ApkInfo } | undefined;

/** The APK's size and digest, read again only when the file changes; undefined when it is not built. */
export function apkInfo(file: string | undefined): ApkInfo | undefined {
  if (!file) return undefined;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const key = `${file}:${stat.size}:${stat.mtimeMs}`;
  if (apkCache?.key !== key)
    apkCache = { key, info: { size: stat.size, sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex') } };
  return apkCache.info;
}

/** The APK a phone downloads: its size, its digest and its bytes; NOT_FOUND when this server has none. */
export function apkDownload(file: string | undefined): { info: ApkInfo; content: Readable } {
  const info = apkInfo(file);
  if (!info || !file) throw new AppError('NOT_FOUND');
  return { info, content: fs.createReadStream(file) };
}

const startOfTodayUtc = () => new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00.000Z').toISOString();

/** The client's phones, each with its queue and its live sends of today. */
async function listPhones(up: Upstreams, clientId: string): Promise<PhoneRow[]> {
  const { devices } = await up.devices.listDevices({ clientId, onlineOnly: false });
  const ids = devices.map((d) => d.deviceId);
  const [queued, today] = await Promise.all([
    ids.length ? up.messages.queueDepths({ deviceIds: ids }).then((r) => r.depths) : Promise.resolve<Record<string, number>>({}),
    Promise.all(
      devices.map((d) =>
        up.messages.getStats({ clientId, mode: 'MODE_LIVE', fromDate: startOfTodayUtc(), toDate: '', deviceId: d.deviceId }),
      ),
    ),
  ]);
  return devices.map((device, i) => ({ device, queued: queued[device.deviceId] ?? 0, sentToday: today[i]!.totalSent }));
}

/** Each phone of the client online or offline now, as a live change (`at`: when it was last seen, '' if never). */
export async function phoneStates(up: Upstreams, clientId: string): Promise<DeviceChange[]> {
  const { devices } = await up.devices.listDevices({ clientId, onlineOnly: false });
  return devices.map((d) => ({ device_id: d.deviceId, status: d.status === 'online' ? 'online' : 'offline', at: d.lastSeenAt }));
}

/** The Phones page's contents. */
export async function phonesList(deps: PhonesDeps, clientId: string): Promise<PhonesList> {
  const [phones, verified, fleet] = await Promise.all([
    listPhones(deps.up, clientId),
    accountVerified(deps.up, clientId),
    deps.up.devices.getFleetSettings({ clientId }),
  ]);
  return { phones, apk: apkInfo(deps.apkFile), accountVerified: verified, fleet };
}

/**
 * A new phone, with the secrets that pair it (shown once), and the Phones page with it. Only for a
 * verified account (ACCOUNT_NOT_VERIFIED), within the account's cap of phones (LIMIT_REACHED, the hub's).
 */
export async function addPhone(deps: PhonesDeps, clientId: string, name: string): Promise<PhonesList & { added: AddedPhone }> {
  await requireVerifiedAccount(deps.up, clientId);
  const d = await deps.up.devices.createDevice({ clientId, name });
  const added = { deviceId: d.deviceId, name, password: d.devicePassword, pairingUrl: d.pairingUrl, expiresAt: d.pairingExpiresAt };
  return { added, ...(await phonesList(deps, clientId)) };
}

export async function renamePhone(up: Upstreams, clientId: string, deviceId: string, name: string): Promise<void> {
  await up.devices.renameDevice({ clientId, deviceId, name });
}

export async function removePhone(up: Upstreams, clientId: string, deviceId: string): Promise<void> {
  await up.devices.removeDevice({ clientId, deviceId });
}

/**
 * A new pairing for a phone: a new password and pairing code (shown once); the old ones and its tokens stop working and it
 * is disconnected. With the Phones page after it.
 */
export async function rotatePhone(deps: PhonesDeps, clientId: string, deviceId: string): Promise<PhonesList & { added: AddedPhone }> {
  await requireVerifiedAccount(deps.up, clientId);
  const { name } = await deps.up.devices.getDevice({ clientId, deviceId });
  const d = await deps.up.devices.rotateDeviceCredentials({ clientId, deviceId });
  const added = { deviceId, name, password: d.devicePassword, pairingUrl: d.pairingUrl, expiresAt: d.pairingExpiresAt, rotated: true };
  return { added, ...(await phonesList(deps, clientId)) };
}

/** A phone's tokens, password and pairing code stop working and it is disconnected, until a new pairing. With the Phones page after it. */
export async function revokePhone(deps: PhonesDeps, clientId: string, deviceId: string): Promise<PhonesList> {
  await deps.up.devices.revokeDeviceCredentials({ clientId, deviceId });
  return phonesList(deps, clientId);
}
