// Over 300 lines: the Admin class is one method per operator command (accounts, devices, fleets,
// webhooks, the OTP guard), each a gRPC call and its JSON, on the four clients it holds.
import fs from 'node:fs';
import path from 'node:path';
import { commonConfig, createClient, loadConfig, type GrpcTls } from '@smsgw/platform';
import { accountProto, deviceHubProto, otpProto, webhookProto, type account, type devicehub, type otp, type webhook } from '@smsgw/proto';
import { deviceLimitsJson, fleetJson, mergeLimits, simHealthJson, type FleetChange, type LimitsChange } from './fleet';
import { destinationsJson, guardJson, holdJson, type DestinationsChange, type GuardChange } from './otp-protection';

export interface AdminAddresses {
  accountAddress: string;
  deviceHubAddress: string;
  webhookAddress: string;
  /** The otp service (the OTP guard's commands); 127.0.0.1:50054 when not given. */
  otpAddress?: string;
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
    webhookAddress: env.WEBHOOK_GRPC_ADDR ?? dev.webhookAddress ?? '127.0.0.1:50056',
    otpAddress: env.OTP_GRPC_ADDR ?? dev.otpAddress ?? '127.0.0.1:50054',
  };
}

/**
 * The admin identity's certificate: GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE
 * (or GRPC_TLS=off) when set, else the files of a running local stack, else a configuration error
 * naming the variables.
 */
export function resolveGrpcTls(env: NodeJS.ProcessEnv = process.env): GrpcTls {
  const fromEnv = ['GRPC_TLS', 'GRPC_TLS_CA_FILE', 'GRPC_TLS_CERT_FILE', 'GRPC_TLS_KEY_FILE'].some((name) => env[name]);
  if (!fromEnv && fs.existsSync(DEV_FILE)) {
    const dev = JSON.parse(fs.readFileSync(DEV_FILE, 'utf8')) as { adminGrpcTls?: { caFile: string; certFile: string; keyFile: string } };
    if (dev.adminGrpcTls) return { mode: 'mtls', ...dev.adminGrpcTls };
  }
  return loadConfig((reader) => commonConfig.grpcTls(reader), env);
}

export class Admin {
  private readonly accounts;
  private readonly devices;
  private readonly webhooks;
  private readonly otps;

  /** `tls`: the admin identity's certificate (`resolveGrpcTls()`, or a stack's `grpcCredentials('admin')`). */
  constructor(addresses: AdminAddresses, tls: GrpcTls) {
    this.accounts = createClient<account.AccountServiceClient>(accountProto().AccountService, addresses.accountAddress, {
      deadlineMs: 10_000,
      tls,
    });
    this.devices = createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, addresses.deviceHubAddress, {
      deadlineMs: 10_000,
      tls,
    });
    this.webhooks = createClient<webhook.WebhookServiceClient>(webhookProto().WebhookService, addresses.webhookAddress, {
      deadlineMs: 15_000,
      tls,
    });
    this.otps = createClient<otp.OtpServiceClient>(otpProto().OtpService, addresses.otpAddress ?? '127.0.0.1:50054', {
      deadlineMs: 10_000,
      tls,
    });
  }

  /** Where the client's sends may go: the lists given change, the others stay. */
  async setDestinations(clientId: string, change: DestinationsChange) {
    const current = await this.accounts.getClient({ clientId });
    if (!change.smsCountries && !change.otpCountries && !change.otpNumberTypes) return destinationsJson(current);
    const updated = await this.accounts.updateClient({
      clientId,
      email: '',
      name: '',
      setDestinations: true,
      smsCountries: change.smsCountries ?? current.smsCountries,
      otpCountries: change.otpCountries ?? current.otpCountries,
      otpNumberTypes: change.otpNumberTypes ?? current.otpNumberTypes,
    });
    return destinationsJson(updated);
  }

  /** The client's OTP pumping guard: the values given change, the others stay (the operator's defaults until then). */
  async setOtpGuard(clientId: string, change: GuardChange) {
    const current = await this.otps.getGuardSettings({ clientId });
    if (Object.values(change).every((v) => v === undefined)) return guardJson(current);
    const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
    return guardJson(await this.otps.setGuardSettings({ ...current, ...defined, clientId }));
  }

  async listOtpHolds(clientId: string) {
    const { holds } = await this.otps.listHolds({ clientId, mode: 'MODE_UNSPECIFIED' });
    return holds.map(holdJson);
  }

  async releaseOtpHold(clientId: string, holdId: string) {
    return holdJson(await this.otps.releaseHold({ clientId, holdId }));
  }

  async createClient(email: string, name = '') {
    const c = await this.accounts.createClient({ email, name });
    return { client_id: c.clientId, live_api_key: c.liveApiKey, test_api_key: c.testApiKey, signing_secret: c.signingSecret };
  }

  /**
   * A dashboard user and the client it owns (what the dashboard's sign-up does); the operator
   * vouches for its address, so the account counts as verified at once.
   */
  async createUser(email: string, password: string, name = '') {
    const r = await this.accounts.signUp({ email, password, name });
    await this.accounts.markAccountVerified({ clientId: r.user!.clientId });
    const { secret } = await this.accounts.getSigningSecret({ clientId: r.user!.clientId });
    return {
      user_id: r.user!.userId,
      client_id: r.user!.clientId,
      live_api_key: r.liveApiKey,
      test_api_key: r.testApiKey,
      signing_secret: secret,
    };
  }

  /** Creates a device of an existing client. */
  async createDevice(clientId: string, name = '') {
    await this.accounts.getClient({ clientId });
    const d = await this.devices.createDevice({ clientId, name });
    return { device_id: d.deviceId, device_password: d.devicePassword, pairing_url: d.pairingUrl, pairing_expires_at: d.pairingExpiresAt };
  }

  /**
   * `count` devices of the client, enrolled by QR code: each pairs with its one-time pairing code
   * only (no device password; rotateDevice gives one). Asks the hub 1,000 at a time.
   */
  async createDevices(clientId: string, count: number, namePrefix = 'phone-') {
    await this.accounts.getClient({ clientId });
    const made: { device_id: string; name: string; pairing_url: string; pairing_code: string; pairing_expires_at: string }[] = [];
    for (let start = 0; start < count; start += 1000) {
      const batch = Math.min(1000, count - start);
      const { devices } = await this.devices.createDevices({ clientId, count: batch, namePrefix, firstNumber: start + 1 });
      for (const [i, d] of devices.entries()) {
        made.push({
          device_id: d.deviceId,
          name: `${namePrefix}${start + i + 1}`,
          pairing_url: d.pairingUrl,
          pairing_code: d.pairingCode,
          pairing_expires_at: d.pairingExpiresAt,
        });
      }
    }
    return made;
  }

  /** A new pairing for the device: its old password, code and tokens stop working and its phone is disconnected. */
  async rotateDevice(clientId: string, deviceId: string) {
    const d = await this.devices.rotateDeviceCredentials({ clientId, deviceId });
    return { device_id: d.deviceId, device_password: d.devicePassword, pairing_url: d.pairingUrl, pairing_expires_at: d.pairingExpiresAt };
  }

  /** The device's tokens, password and pairing code stop working and its phone is disconnected, until it is rotated. */
  async revokeDevice(clientId: string, deviceId: string) {
    const r = await this.devices.revokeDeviceCredentials({ clientId, deviceId });
    return { device_id: deviceId, tokens_revoked: r.revoked };
  }

  /**
   * Removes the phone: its sessions end and its credentials stop working; its unpinned queued
   * messages move to the client's other phones and its pinned ones fail with DEVICE_REMOVED.
   */
  async removeDevice(clientId: string, deviceId: string) {
    const r = await this.devices.removeDevice({ clientId, deviceId });
    return { device_id: deviceId, removed: r.removed };
  }

  /** Changes the limits given and keeps the others (the device is read first: SetDeviceLimits sets them all). */
  /** The phone's SIM health thresholds; those not given keep their value. */
  async setSimHealth(clientId: string, deviceId: string, change: Partial<Record<keyof devicehub.SimHealthSettings, number | undefined>>) {
    const current = await this.devices.getDevice({ clientId, deviceId });
    const given = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
    const d = await this.devices.setSimHealth({ clientId, deviceId, settings: { ...current.simHealthSettings, ...given } });
    return simHealthJson(d);
  }

  /** Releases the phone's quarantined SIM by hand. */
  async releaseSim(clientId: string, deviceId: string, slot: number) {
    return simHealthJson(await this.devices.releaseSim({ clientId, deviceId, slot }));
  }

  async setDeviceLimits(clientId: string, deviceId: string, change: LimitsChange) {
    const current = await this.devices.getDevice({ clientId, deviceId });
    const d = await this.devices.setDeviceLimits({ clientId, deviceId, limits: mergeLimits(current.limits, change) });
    return deviceLimitsJson(d);
  }

  /**
   * Makes the phone receive an SMS (tests, demonstrations). Live: the hub tells a connected
   * simulator phone, which relays it as any received SMS (the answer's received_id is then empty:
   * the phone makes its own). Test: the hub records it at once for the test keys and returns its id.
   */
  async receiveSms(clientId: string, deviceId: string, sms: { from: string; text: string; sim?: number; test?: boolean }) {
    const r = await this.devices.simulateReceived({
      clientId,
      deviceId,
      mode: sms.test ? 2 : 1,
      from: sms.from,
      text: sms.text,
      sim: sms.sim ?? 0,
    });
    return { device_id: deviceId, received_id: r.receivedId };
  }

  /**
   * Changes the fleet settings given (ttl and failover delay; SIM rule and
   * default SIM) and keeps the others; with none, prints them.
   */
  async setFleet(clientId: string, change: FleetChange) {
    const current = await this.accounts.getClient({ clientId });
    const setFleet = change.defaultTtlSeconds !== undefined || change.failoverDelaySeconds !== undefined;
    const setSimRule = change.simRule !== undefined || change.defaultSim !== undefined;
    if (!setFleet && !setSimRule) return fleetJson(current);
    const updated = await this.accounts.updateClient({
      clientId,
      email: '',
      name: '',
      setFleet,
      defaultTtlSeconds: change.defaultTtlSeconds ?? current.defaultTtlSeconds,
      // A service that never stored it answers 0: the default 60 s.
      failoverDelaySeconds: change.failoverDelaySeconds ?? (current.failoverDelaySeconds || 60),
      setSimRule,
      // A service that never stored them answers '' and 0: the defaults, round_robin and SIM 1.
      simRule: change.simRule ?? (current.simRule || 'round_robin'),
      defaultSim: change.defaultSim ?? (current.defaultSim || 1),
    });
    return fleetJson(updated);
  }

  /**
   * Another key of a client, limited or not: scopes (send, otp, read, inbox, opt-outs, listen;
   * none: every one), source address ranges (CIDR; none: anywhere), a daily quota of SMS (0: none).
   * The key is printed here only.
   */
  /** An SMPP credential of the client; its password is shown only here. */
  async createSmppCredential(
    clientId: string,
    options: { bindType: 'transmitter' | 'receiver' | 'transceiver'; test?: boolean; label?: string; deviceId?: string },
  ) {
    const made = await this.accounts.createSmppCredential({
      clientId,
      bindType: `SMPP_BIND_TYPE_${options.bindType.toUpperCase()}` as 'SMPP_BIND_TYPE_TRANSCEIVER',
      mode: options.test ? 'KEY_MODE_TEST' : 'KEY_MODE_LIVE',
      label: options.label ?? '',
      deviceId: options.deviceId ?? '',
      userId: '',
      actorAddress: '',
    });
    return { credential_id: made.credential!.credentialId, system_id: made.credential!.systemId, password: made.password };
  }

  async createKey(
    clientId: string,
    options: { test?: boolean; label?: string; scopes?: string[]; ipRanges?: string[]; dailyQuota?: number } = {},
  ) {
    const made = await this.accounts.createApiKey({
      clientId,
      mode: options.test ? 'KEY_MODE_TEST' : 'KEY_MODE_LIVE',
      label: options.label ?? '',
      scopes: options.scopes ?? [],
      ipRanges: options.ipRanges ?? [],
      dailyQuota: options.dailyQuota ?? 0,
    });
    return { key_id: made.keyId, api_key: made.apiKey };
  }

  async revokeKey(apiKey: string) {
    const r = await this.accounts.revokeApiKey({ apiKey });
    return { key_id: r.keyId, revoked_at: r.revokedAt };
  }

  /** A global webhook endpoint; the secret is printed here only. */
  async createWebhook(
    clientId: string,
    url: string,
    events: string[],
    options: { test?: boolean; batch?: boolean; description?: string } = {},
  ) {
    const e = await this.webhooks.createEndpoint({
      clientId,
      url,
      events,
      mode: options.test ? 'MODE_TEST' : 'MODE_LIVE',
      description: options.description ?? '',
      batch: options.batch ?? false,
    });
    return {
      endpoint_id: e.endpointId,
      secret: e.secret,
      url: e.url,
      events: e.events,
      mode: options.test ? 'test' : 'live',
      batch: e.batch,
    };
  }

  async listWebhooks(clientId: string) {
    const { endpoints } = await this.webhooks.listEndpoints({ clientId });
    return endpoints.map((e) => ({
      endpoint_id: e.endpointId,
      url: e.url,
      events: e.events,
      mode: e.mode === 'MODE_TEST' ? 'test' : 'live',
      enabled: e.enabled,
      batch: e.batch,
      description: e.description,
      created_at: e.createdAt,
    }));
  }

  async deleteWebhook(clientId: string, endpointId: string) {
    return this.webhooks.deleteEndpoint({ clientId, endpointId });
  }

  async sendTestEvent(clientId: string, endpointId: string, event: string) {
    const r = await this.webhooks.sendTestEvent({ clientId, endpointId, event });
    return { event_id: r.eventId, delivery_id: r.deliveryId };
  }

  async replayEvent(clientId: string, eventId: string, endpointId = '') {
    const r = await this.webhooks.replayEvent({ clientId, eventId, endpointId });
    return r.deliveries.map(deliveryJson);
  }

  async listDeliveries(clientId: string, filter: { eventId?: string; endpointId?: string; limit?: number }) {
    const r = await this.webhooks.listDeliveries({
      clientId,
      eventId: filter.eventId ?? '',
      endpointId: filter.endpointId ?? '',
      limit: filter.limit ?? 20,
      before: '',
    });
    return r.deliveries.map(deliveryJson);
  }

  close(): void {
    this.accounts.close();
    this.devices.close();
    this.webhooks.close();
    this.otps.close();
  }
}

function deliveryJson(d: webhook.Delivery__Output) {
  return {
    delivery_id: d.deliveryId,
    event_id: d.eventId,
    event: d.event,
    endpoint_id: d.endpointId || null,
    url: d.url,
    state: d.state,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      at: a.attemptedAt,
      http_status: a.httpStatus || null,
      latency_ms: a.latencyMs,
      error: a.error || null,
    })),
    next_attempt_at: d.nextAttemptAt || null,
    replay_of: d.replayOf || null,
  };
}
