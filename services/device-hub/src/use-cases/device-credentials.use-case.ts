import { AppError, hashSecret, newId } from '@smsgw/platform';
import type { DeviceRepository } from '../data/device.repository';
import type { DeviceRow } from '../data/device-row';
import type { DevicePasswordHasher } from '../domain/device-password-hash';
import { newDevicePassword, newPairingCode } from '../domain/pairing';
import { getDevice, MAX_BULK_DEVICES, type DeviceLookup } from './devices.use-case';

// A draw clashes with one chance in 923,521 per device of the client (password lookup): five
// clashes in a row do not happen below hundreds of thousands of devices per client.
const CREATE_DRAWS = 5;

/** What issuing a device's secrets takes: where they are stored, how a password is hashed, the code's life. */
export interface CredentialsDeps {
  repo: Pick<DeviceRepository, 'countByClient' | 'create' | 'createMany' | 'rotateCredentials' | 'revokeCredentials' | 'find'>;
  passwords: Pick<DevicePasswordHasher, 'hash'>;
  settings: {
    /** How long a pairing code stays valid. */
    codeTtlMs: number;
    /** Phones one client may have at once (`createDevice`); 0: no cap. */
    maxDevicesPerClient: number;
    /** The hub's address phones reach (pairing URLs). */
    publicUrl: () => string;
  };
}

/** A device's secrets as shown once to its owner. */
export interface IssuedCredentials {
  device: DeviceRow;
  password: string;
  pairingCode: string;
  pairingUrl: string;
  pairingExpiresAt: Date;
}

const pairingUrl = (deps: Pick<CredentialsDeps, 'settings'>, code: string) => `${deps.settings.publicUrl()}/v1/agent/pair?code=${code}`;

/**
 * A new device of the client, within its cap (LIMIT_REACHED past it: checked before the
 * password is hashed, and again where it is stored, under a lock on the client).
 */
export async function createDevice(
  deps: Pick<CredentialsDeps, 'repo' | 'passwords' | 'settings'>,
  clientId: string,
  name: string,
): Promise<IssuedCredentials> {
  if (!/^client_[0-9]+$/.test(clientId)) throw new AppError('INVALID_CLIENT_ID');
  const max = deps.settings.maxDevicesPerClient;
  const full = () =>
    new AppError('LIMIT_REACHED', {
      message: `Un compte peut avoir ${max} téléphones au plus : retirez-en un avant d'en ajouter un autre.`,
    });
  if (max > 0 && (await deps.repo.countByClient(clientId, max)) >= max) throw full();
  const deviceId = newId('device');
  const created = await drawCredentials(deps, async (next) => {
    const device = await deps.repo.create({ deviceId, clientId, name: name.trim().slice(0, 100), ...next }, max);
    if (device === 'full') throw full();
    return device;
  });
  return { ...created.secrets, device: created.device };
}

/**
 * `count` devices of the client at once (a fleet enrolled by QR codes): each pairs with its
 * one-time code only, so no password is drawn or hashed (a device password costs some 50 ms of
 * scrypt: 20 devices a second on one core). RotateDeviceCredentials gives one a password.
 */
export async function createDevices(
  deps: Pick<CredentialsDeps, 'repo' | 'settings'>,
  clientId: string,
  count: number,
  namePrefix: string,
  firstNumber = 1,
): Promise<IssuedCredentials[]> {
  if (!/^client_[0-9]+$/.test(clientId)) throw new AppError('INVALID_CLIENT_ID');
  if (!Number.isInteger(count) || count < 1 || count > MAX_BULK_DEVICES) {
    const message = `count doit être un entier entre 1 et ${MAX_BULK_DEVICES}.`;
    throw new AppError('VALIDATION_ERROR', { message, details: [{ field: 'count', message }] });
  }
  const prefix = namePrefix.trim().slice(0, 80);
  const expiresAt = new Date(Date.now() + deps.settings.codeTtlMs);
  // In name order, whatever draw stored each one.
  const made: { device: DeviceRow; pairingCode: string }[] = [];
  let wanted = Array.from({ length: count }, (_, i) => ({ index: i, deviceId: newId('device'), name: `${prefix}${firstNumber + i}` }));
  for (let draw = 1; wanted.length > 0; draw++) {
    if (draw > CREATE_DRAWS) throw new AppError('INTERNAL_ERROR', { cause: new Error(`no free lookups after ${CREATE_DRAWS} draws`) });
    const drawn = wanted.map((w) => ({ ...w, passwordLookup: newDevicePassword().lookup, code: newPairingCode() }));
    const stored = await deps.repo.createMany(
      clientId,
      expiresAt,
      drawn.map((d) => ({ ...d, pairingCodeLookup: d.code.lookup, pairingCodeHash: hashSecret(d.code.plain) })),
    );
    const byId = new Map(stored.map((row) => [row.device_id, row]));
    for (const d of drawn) {
      const device = byId.get(d.deviceId);
      if (device) made[d.index] = { device, pairingCode: d.code.plain };
    }
    wanted = drawn.filter((d) => !byId.has(d.deviceId)).map(({ index, deviceId, name }) => ({ index, deviceId, name }));
  }
  return made.map(({ device, pairingCode }) => ({
    device,
    password: '',
    pairingCode,
    pairingUrl: pairingUrl(deps, pairingCode),
    pairingExpiresAt: expiresAt,
  }));
}

/**
 * A new pairing for the client's device: a new password and pairing code (shown once), every
 * token revoked. The caller disconnects the phone.
 */
export async function rotateCredentials(
  deps: Pick<CredentialsDeps, 'repo' | 'passwords' | 'settings'> & DeviceLookup,
  clientId: string,
  deviceId: string,
): Promise<IssuedCredentials> {
  const { device } = await getDevice(deps, clientId, deviceId);
  const rotated = await drawCredentials(deps, async (next) => {
    if (await deps.repo.rotateCredentials(deviceId, next)) return device;
    // Not a clash of lookups when the device was removed meanwhile (a removal racing the rotation).
    if (!(await deps.repo.find(deviceId))) throw new AppError('INVALID_DEVICE_ID');
    return undefined;
  });
  return { ...rotated.secrets, device };
}

/** Revokes the client's device's tokens, password and pairing code; how many tokens were revoked. */
export async function revokeCredentials(
  deps: Pick<CredentialsDeps, 'repo'> & DeviceLookup,
  clientId: string,
  deviceId: string,
): Promise<number> {
  await getDevice(deps, clientId, deviceId);
  return deps.repo.revokeCredentials(deviceId);
}

/** Draws a password and a pairing code until `store` takes them (a lookup may clash). */
async function drawCredentials(
  deps: Pick<CredentialsDeps, 'passwords' | 'settings'>,
  store: (next: {
    passwordLookup: string;
    passwordHash: Buffer;
    pairingCodeLookup: string;
    pairingCodeHash: Buffer;
    pairingExpiresAt: Date;
  }) => Promise<DeviceRow | undefined>,
) {
  for (let draw = 1; ; draw++) {
    const password = newDevicePassword();
    const pairingCode = newPairingCode();
    const expiresAt = new Date(Date.now() + deps.settings.codeTtlMs);
    const device = await store({
      passwordLookup: password.lookup,
      passwordHash: await deps.passwords.hash(password.normalized),
      pairingCodeLookup: pairingCode.lookup,
      pairingCodeHash: hashSecret(pairingCode.plain),
      pairingExpiresAt: expiresAt,
    });
    if (device) {
      return {
        device,
        secrets: {
          password: password.plain,
          pairingCode: pairingCode.plain,
          pairingUrl: pairingUrl(deps, pairingCode.plain),
          pairingExpiresAt: expiresAt,
        },
      };
    }
    if (draw === CREATE_DRAWS)
      throw new AppError('INTERNAL_ERROR', { cause: new Error(`no free device password lookup after ${CREATE_DRAWS} draws`) });
  }
}
