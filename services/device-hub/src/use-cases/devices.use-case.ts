// Over 300 lines: a device's credentials from creation to revocation (pairing codes, passwords,
// tokens) share the repository, the presence store and the secret hashing; one class keeps the
// secrets' rules side by side.
import { AppError, Batches, hashSecret, issueSecret, newId, secretLookup, secretMatches } from '@smsgw/platform';
import type { DeviceRepository, FoundToken } from '../data/device.repository';
import type { DeviceRow } from '../data/device-row';
import type { PairingAttemptStore } from '../data/pairing-attempts.store';
import type { PresenceStore } from '../data/presence.store';
import { scryptDevicePasswords, type DevicePasswordHasher } from '../domain/device-password-hash';
import { newDevicePassword, newPairingCode, normalizeDevicePassword, normalizePairingCode, pairingAddressKey } from '../domain/pairing';

const TOKEN_PREFIX = 'dtk_';
// A draw clashes with one chance in 923,521 per device of the client (password lookup): five
// clashes in a row do not happen below hundreds of thousands of devices per client.
const CREATE_DRAWS = 5;
/** The most devices one CreateDevices call makes. */
export const MAX_BULK_DEVICES = 1000;

export interface PairingSettings {
  /** How long a pairing code stays valid. */
  codeTtlMs: number;
  /** Failed pairing attempts allowed per client address in `rateWindowMs`. */
  rateLimit: number;
  rateWindowMs: number;
  /** Wrong tries allowed per pairing code or device password in `lockMs`; past them it is locked. */
  maxFailures: number;
  lockMs: number;
  /** Pairings one device may make in `perDeviceWindowMs`: a leaked password cannot take the phone over again and again. */
  perDeviceMax: number;
  perDeviceWindowMs: number;
  /** Phones one client may have at once (`create`); 0: no cap. */
  maxDevicesPerClient: number;
}

export interface AuthenticatedDevice {
  device: DeviceRow;
  tokenId: string;
}

export interface DeviceView {
  device: DeviceRow;
  online: boolean;
}

/** How long a connecting phone's token lookup waits for others' (a query each costs more than the wait). */
const TOKEN_LOOKUP_DELAY_MS = 10;

/** Devices, pairing and agent authentication: the rules, with storage passed in. */
export class DeviceUseCases {
  /**
   * The phones connecting within TOKEN_LOOKUP_DELAY_MS of each other are looked up together: a
   * fleet coming back after a restart costs Postgres one query per batch, not one per phone.
   */
  private readonly tokenLookups = new Batches<string, undefined, FoundToken>((lookups) => this.repo.findTokens([...lookups.keys()]));

  constructor(
    private readonly repo: DeviceRepository,
    private readonly presence: PresenceStore,
    private readonly attempts: PairingAttemptStore,
    private readonly settings: PairingSettings & { publicUrl: () => string },
    private readonly passwords: DevicePasswordHasher = scryptDevicePasswords,
  ) {}

  /**
   * A new device of the client, within its cap (LIMIT_REACHED past it: checked before the
   * password is hashed, and again where it is stored, under a lock on the client).
   */
  async create(clientId: string, name: string) {
    if (!/^client_[0-9]+$/.test(clientId)) throw new AppError('INVALID_CLIENT_ID');
    const max = this.settings.maxDevicesPerClient;
    const full = () =>
      new AppError('LIMIT_REACHED', {
        message: `Un compte peut avoir ${max} téléphones au plus : retirez-en un avant d'en ajouter un autre.`,
      });
    if (max > 0 && (await this.repo.countByClient(clientId, max)) >= max) throw full();
    const deviceId = newId('device');
    const created = await this.drawCredentials(async (next) => {
      const device = await this.repo.create({ deviceId, clientId, name: name.trim().slice(0, 100), ...next }, max);
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
  async createMany(clientId: string, count: number, namePrefix: string, firstNumber = 1) {
    if (!/^client_[0-9]+$/.test(clientId)) throw new AppError('INVALID_CLIENT_ID');
    if (!Number.isInteger(count) || count < 1 || count > MAX_BULK_DEVICES) {
      const message = `count doit être un entier entre 1 et ${MAX_BULK_DEVICES}.`;
      throw new AppError('VALIDATION_ERROR', { message, details: [{ field: 'count', message }] });
    }
    const prefix = namePrefix.trim().slice(0, 80);
    const expiresAt = new Date(Date.now() + this.settings.codeTtlMs);
    // In name order, whatever draw stored each one.
    const made: { device: DeviceRow; pairingCode: string }[] = [];
    let wanted = Array.from({ length: count }, (_, i) => ({ index: i, deviceId: newId('device'), name: `${prefix}${firstNumber + i}` }));
    for (let draw = 1; wanted.length > 0; draw++) {
      if (draw > CREATE_DRAWS) throw new AppError('INTERNAL_ERROR', { cause: new Error(`no free lookups after ${CREATE_DRAWS} draws`) });
      const drawn = wanted.map((w) => ({ ...w, passwordLookup: newDevicePassword().lookup, code: newPairingCode() }));
      const stored = await this.repo.createMany(
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
      pairingUrl: `${this.settings.publicUrl()}/v1/agent/pair?code=${pairingCode}`,
      pairingExpiresAt: expiresAt,
    }));
  }

  /**
   * A new pairing for the client's device: a new password and pairing code (shown once), every
   * token revoked. The caller disconnects the phone.
   */
  async rotateCredentials(clientId: string, deviceId: string) {
    const { device } = await this.get(clientId, deviceId);
    const rotated = await this.drawCredentials(async (next) => {
      if (await this.repo.rotateCredentials(deviceId, next)) return device;
      // Not a clash of lookups when the device was removed meanwhile (a removal racing the rotation).
      if (!(await this.repo.find(deviceId))) throw new AppError('INVALID_DEVICE_ID');
      return undefined;
    });
    return { ...rotated.secrets, device };
  }

  /** Revokes the client's device's tokens, password and pairing code; how many tokens were revoked. */
  async revokeCredentials(clientId: string, deviceId: string): Promise<number> {
    await this.get(clientId, deviceId);
    return this.repo.revokeCredentials(deviceId);
  }

  /** Draws a password and a pairing code until `store` takes them (a lookup may clash). */
  private async drawCredentials(
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
      const expiresAt = new Date(Date.now() + this.settings.codeTtlMs);
      const device = await store({
        passwordLookup: password.lookup,
        passwordHash: await this.passwords.hash(password.normalized),
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
            pairingUrl: `${this.settings.publicUrl()}/v1/agent/pair?code=${pairingCode.plain}`,
            pairingExpiresAt: expiresAt,
          },
        };
      }
      if (draw === CREATE_DRAWS)
        throw new AppError('INTERNAL_ERROR', { cause: new Error(`no free device password lookup after ${CREATE_DRAWS} draws`) });
    }
  }

  /**
   * Pairs with a one-time code or with client id + device password, and issues a device token.
   * Every attempt is counted before it is checked, against the caller's address and against its
   * target (the code or password): past the limits it is refused with 429 and Retry-After, even
   * when right. A right attempt gives its address's count back and clears its target's; it is
   * then counted against its device (`perDeviceMax` in the window, 429 past it), and its token
   * becomes the device's only one: the tokens of earlier pairings are revoked (the phone that held
   * one is closed by the credential check of its replica).
   */
  async pair(body: Record<string, unknown>, clientAddress: string | undefined): Promise<{ device_id: string; device_token: string }> {
    const { rateLimit, rateWindowMs, maxFailures, lockMs } = this.settings;
    // An address a trusted proxy hid (undefined) is everyone's: only the target's count applies then.
    const address = clientAddress === undefined ? undefined : `address:${pairingAddressKey(clientAddress)}`;
    const byAddress = address === undefined ? undefined : await this.attempts.count(address, rateWindowMs);
    if (byAddress && byAddress.count > rateLimit) {
      throw new AppError('RATE_LIMIT_EXCEEDED', {
        message: "Trop de tentatives d'appairage depuis cette adresse : réessayez plus tard.",
        retryAfterSeconds: Math.max(1, Math.ceil(byAddress.retryAfterMs / 1000)),
      });
    }
    const target = this.pairingTarget(body);
    if (!target) throw new AppError('INVALID_PAIRING');
    const byTarget = await this.attempts.count(target.key, lockMs);
    if (byTarget.count > maxFailures) {
      throw new AppError('RATE_LIMIT_EXCEEDED', {
        message: "Trop d'essais erronés pour ce code d'appairage ou ce mot de passe d'appareil : il est bloqué, réessayez plus tard.",
        retryAfterSeconds: Math.max(1, Math.ceil(byTarget.retryAfterMs / 1000)),
      });
    }
    const device = await target.find();
    if (!device) throw new AppError('INVALID_PAIRING');
    await Promise.all([address && this.attempts.refund(address), this.attempts.reset(target.key)]);
    const byDevice = await this.attempts.count(`device:${device.device_id}`, this.settings.perDeviceWindowMs);
    if (byDevice.count > this.settings.perDeviceMax) {
      throw new AppError('RATE_LIMIT_EXCEEDED', {
        message: "Trop d'appairages de cet appareil : réessayez plus tard, ou donnez-lui un nouvel appairage depuis le tableau de bord.",
        retryAfterSeconds: Math.max(1, Math.ceil(byDevice.retryAfterMs / 1000)),
      });
    }
    const token = issueSecret(TOKEN_PREFIX);
    await this.repo.insertOnlyToken({ tokenId: newId('tok'), deviceId: device.device_id, lookup: token.lookup, hash: token.hash });
    return { device_id: device.device_id, device_token: token.plain };
  }

  /** What the pairing request aims at: the key its tries are counted under, and how to check it. */
  private pairingTarget(body: Record<string, unknown>): { key: string; find(): Promise<DeviceRow | undefined> } | undefined {
    if (typeof body.pairing_code === 'string') {
      const code = normalizePairingCode(body.pairing_code);
      return code && { key: `code:${code.lookup}`, find: () => this.repo.consumePairingCode(code.lookup, hashSecret(code.normalized)) };
    }
    if (typeof body.client_id === 'string' && typeof body.device_password === 'string' && /^client_[0-9]+$/.test(body.client_id)) {
      const clientId = body.client_id;
      const password = normalizeDevicePassword(body.device_password);
      return (
        password && {
          key: `password:${clientId}:${password.lookup}`,
          find: async () => {
            const candidate = await this.repo.findByPasswordLookup(clientId, password.lookup);
            if (!candidate?.password_hash || !(await this.passwords.matches(password.normalized, candidate.password_hash)))
              return undefined;
            if (!this.passwords.isCurrent(candidate.password_hash)) {
              await this.repo.upgradePasswordHash(
                candidate.device_id,
                candidate.password_hash,
                await this.passwords.hash(password.normalized),
              );
            }
            return candidate;
          },
        }
      );
    }
    return undefined;
  }

  /** The device of a good token, with the token's id (its session is closed once the token is revoked). */
  async authenticate(token: string): Promise<AuthenticatedDevice> {
    const lookup = secretLookup(TOKEN_PREFIX, token);
    const found = lookup && (await this.tokenLookups.add(lookup, undefined, TOKEN_LOOKUP_DELAY_MS)).get(lookup);
    if (!found || found.revoked_at || !secretMatches(token, found.token_hash)) throw new AppError('INVALID_DEVICE_TOKEN');
    return { device: found.device, tokenId: found.token_id };
  }

  /**
   * Those of the pairs whose device is the client's (removed ones included: a device never
   * changes client), in one query; at most MAX_BULK_DEVICES pairs.
   */
  async owned(pairs: { clientId: string; deviceId: string }[]): Promise<{ clientId: string; deviceId: string }[]> {
    if (pairs.length > MAX_BULK_DEVICES) {
      const message = `devices: ${MAX_BULK_DEVICES} au plus.`;
      throw new AppError('VALIDATION_ERROR', { message, details: [{ field: 'devices', message }] });
    }
    const clients = await this.repo.clientsOf([...new Set(pairs.map((p) => p.deviceId))]);
    return pairs.filter((p) => clients.get(p.deviceId) === p.clientId);
  }

  /** The client's device with its presence; another client's device is "unknown". */
  async get(clientId: string, deviceId: string): Promise<DeviceView> {
    const device = /^device_[A-Za-z0-9]+$/.test(deviceId) ? await this.repo.find(deviceId) : undefined;
    if (!device || device.client_id !== clientId) throw new AppError('INVALID_DEVICE_ID');
    const online = await this.presence.onlineSet([deviceId]);
    return { device, online: online.has(deviceId) };
  }

  async list(clientId: string, onlineOnly: boolean): Promise<DeviceView[]> {
    const devices = await this.repo.listByClient(clientId);
    const online = await this.presence.onlineSet(devices.map((d) => d.device_id));
    return devices.map((device) => ({ device, online: online.has(device.device_id) })).filter((v) => !onlineOnly || v.online);
  }

  /**
   * Up to `size` of the client's online devices drawn at random: what the automatic choice picks
   * among in a large fleet, at the cost of `size` devices whatever the fleet's size (one Redis
   * script, one query by key). All of them when no more than `size` are online.
   */
  async sampleOnline(clientId: string, size: number): Promise<DeviceView[]> {
    const drawn = await this.presence.sampleOnline(clientId, size);
    return (await this.repo.findOfClient(clientId, drawn)).map((device) => ({ device, online: true }));
  }

  /** Whether another phone of the device's client, not removed, is online now (one query, one Redis read). */
  async otherPhoneOnline(device: DeviceRow): Promise<boolean> {
    const others = (await this.repo.listByClient(device.client_id)).filter((d) => d.device_id !== device.device_id);
    return (await this.presence.onlineSet(others.map((d) => d.device_id))).size > 0;
  }

  async rename(clientId: string, deviceId: string, name: string): Promise<DeviceView> {
    await this.get(clientId, deviceId);
    await this.repo.rename(deviceId, name.trim().slice(0, 100));
    return this.get(clientId, deviceId);
  }

  async remove(clientId: string, deviceId: string): Promise<void> {
    await this.get(clientId, deviceId);
    await this.repo.remove(deviceId);
  }

  async revokeTokens(clientId: string, deviceId: string): Promise<number> {
    await this.get(clientId, deviceId);
    return this.repo.revokeTokens(deviceId);
  }
}
