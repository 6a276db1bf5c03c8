import fs from 'node:fs';
import path from 'node:path';
import { createClient } from '@smsgw/platform';
import { accountProto, deviceHubProto, type account, type devicehub } from '@smsgw/proto';

export interface AdminAddresses {
  accountAddress: string;
  deviceHubAddress: string;
}

/** The local stack's file, written by `make dev`. */
export const DEV_FILE = path.resolve(__dirname, '../../../.stack/dev.json');

/** Addresses from the environment, else from a running local stack, else the defaults. */
export function resolveAddresses(env: NodeJS.ProcessEnv = process.env): AdminAddresses {
  let dev: Partial<AdminAddresses> = {};
  if (fs.existsSync(DEV_FILE)) dev = JSON.parse(fs.readFileSync(DEV_FILE, 'utf8')) as Partial<AdminAddresses>;
  return {
    accountAddress: env.ACCOUNT_GRPC_ADDR ?? dev.accountAddress ?? '127.0.0.1:50051',
    deviceHubAddress: env.DEVICE_HUB_GRPC_ADDR ?? dev.deviceHubAddress ?? '127.0.0.1:50053',
  };
}

export class Admin {
  private readonly accounts;
  private readonly devices;

  constructor(addresses: AdminAddresses) {
    this.accounts = createClient<account.AccountServiceClient>(accountProto().AccountService, addresses.accountAddress, { deadlineMs: 10_000 });
    this.devices = createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, addresses.deviceHubAddress, {
      deadlineMs: 10_000,
    });
  }

  async createClient(email: string, name = '') {
    const c = await this.accounts.createClient({ email, name });
    return { client_id: c.clientId, live_api_key: c.liveApiKey, test_api_key: c.testApiKey, signing_secret: c.signingSecret };
  }

  /** Creates a device of an existing client. */
  async createDevice(clientId: string, name = '') {
    await this.accounts.getClient({ clientId });
    const d = await this.devices.createDevice({ clientId, name });
    return { device_id: d.deviceId, device_password: d.devicePassword, pairing_url: d.pairingUrl, pairing_expires_at: d.pairingExpiresAt };
  }

  async revokeKey(apiKey: string) {
    const r = await this.accounts.revokeApiKey({ apiKey });
    return { key_id: r.keyId, revoked_at: r.revokedAt };
  }

  close(): void {
    this.accounts.close();
    this.devices.close();
  }
}

