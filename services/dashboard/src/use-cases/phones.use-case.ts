import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { devicehub } from '@smsgw/proto';
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

const startOfTodayUtc = () => new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00.000Z').toISOString();

/** The client's phones, each with its queue and its live sends of today. */
export async function listPhones(up: Upstreams, clientId: string): Promise<PhoneRow[]> {
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

/** A new phone, with the secrets that pair it (shown once). */
export async function addPhone(up: Upstreams, clientId: string, name: string): Promise<AddedPhone> {
  const d = await up.devices.createDevice({ clientId, name });
  return { deviceId: d.deviceId, name, password: d.devicePassword, pairingUrl: d.pairingUrl, expiresAt: d.pairingExpiresAt };
}

export async function renamePhone(up: Upstreams, clientId: string, deviceId: string, name: string): Promise<void> {
  await up.devices.renameDevice({ clientId, deviceId, name });
}

export async function removePhone(up: Upstreams, clientId: string, deviceId: string): Promise<void> {
  await up.devices.removeDevice({ clientId, deviceId });
}

/** A new pairing for a phone: a new password and pairing code (shown once); the old ones and its tokens stop working and it is disconnected. */
export async function rotatePhone(up: Upstreams, clientId: string, deviceId: string): Promise<AddedPhone> {
  const { name } = await up.devices.getDevice({ clientId, deviceId });
  const d = await up.devices.rotateDeviceCredentials({ clientId, deviceId });
  return { deviceId, name, password: d.devicePassword, pairingUrl: d.pairingUrl, expiresAt: d.pairingExpiresAt, rotated: true };
}

/** A phone's tokens, password and pairing code stop working and it is disconnected, until a new pairing. */
export async function revokePhone(up: Upstreams, clientId: string, deviceId: string): Promise<void> {
  await up.devices.revokeDeviceCredentials({ clientId, deviceId });
}
