import { AppError, hashSecret, issueSecret, newId, secretLookup, secretMatches } from '@smsgw/platform';
import type { DeviceRepository, DeviceRow } from './data/device.repository';
import type { PresenceStore } from './data/presence.store';
import { newDevicePassword, newPairingCode, normalizeDevicePassword, normalizePairingCode } from './domain/pairing';

const TOKEN_PREFIX = 'dtk_';

export interface DeviceView {
  device: DeviceRow;
  online: boolean;
}

/** Devices, pairing and agent authentication: the rules, with storage passed in. */
export class DeviceUseCases {
  constructor(
    private readonly repo: DeviceRepository,
    private readonly presence: PresenceStore,
    private readonly settings: { pairingTtlMs: number; publicUrl: () => string },
  ) {}

  async create(clientId: string, name: string) {
    if (!/^client_[0-9]+$/.test(clientId)) throw new AppError('INVALID_CLIENT_ID');
    const password = newDevicePassword();
    const pairingCode = newPairingCode();
    const expiresAt = new Date(Date.now() + this.settings.pairingTtlMs);
    const device = await this.repo.create({
      deviceId: newId('device'),
      clientId,
      name: name.trim().slice(0, 100),
      passwordLookup: password.lookup,
      passwordHash: hashSecret(password.normalized),
      pairingCodeHash: hashSecret(pairingCode),
      pairingExpiresAt: expiresAt,
    });
    return {
      device,
      password: password.plain,
      pairingCode,
      pairingUrl: `${this.settings.publicUrl()}/v1/agent/pair?code=${pairingCode}`,
      pairingExpiresAt: expiresAt,
    };
  }

  /** Pairs with a one-time code or with client id + device password, and issues a device token. */
  async pair(body: Record<string, unknown>): Promise<{ device_id: string; device_token: string }> {
    let device: DeviceRow | undefined;
    if (typeof body.pairing_code === 'string') {
      device = await this.repo.consumePairingCode(hashSecret(normalizePairingCode(body.pairing_code)));
    } else if (typeof body.client_id === 'string' && typeof body.device_password === 'string') {
      const password = normalizeDevicePassword(body.device_password);
      const candidate = password && (await this.repo.findByPasswordLookup(body.client_id, password.lookup));
      if (candidate && password && secretMatches(password.normalized, candidate.password_hash)) device = candidate;
    }
    if (!device) throw new AppError('INVALID_PAIRING');
    const token = issueSecret(TOKEN_PREFIX);
    await this.repo.insertToken({ tokenId: newId('tok'), deviceId: device.device_id, lookup: token.lookup, hash: token.hash });
    return { device_id: device.device_id, device_token: token.plain };
  }

  async authenticate(token: string): Promise<DeviceRow> {
    const lookup = secretLookup(TOKEN_PREFIX, token);
    const found = lookup && (await this.repo.findToken(lookup));
    if (!found || found.revoked_at || !secretMatches(token, found.token_hash)) throw new AppError('INVALID_DEVICE_TOKEN');
    return found.device;
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

  async revokeTokens(clientId: string, deviceId: string): Promise<number> {
    await this.get(clientId, deviceId);
    return this.repo.revokeTokens(deviceId);
  }
}
