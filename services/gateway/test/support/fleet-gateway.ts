import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, createLogger, createRedis, newId, TickPipeline, type Redis, type TrustedProxies } from '@smsgw/platform';
import type { devicehub, message, otp } from '@smsgw/proto';
import { randomHex, REDIS_URL } from '@smsgw/testing';
import { DeviceDirectory } from '../../src/clients/device-directory';
import { KeyUsageStore } from '../../src/clients/key-usage.store';
import { createApp } from '../../src/http/app';
import type { ListenDeps } from '../../src/use-cases/listen.use-case';
import type { Upstreams } from '../../src/use-cases/upstreams';

/** A JSON answer of the API. */
export interface ApiBody {
  success: boolean;
  error?: { code: string; message: string; details?: { field?: string; code?: string; message?: string }[] };
  [field: string]: unknown;
}

export const CLIENT = 'client_1736935200000123456';
export const T0 = '2030-01-15T10:00:00.000Z';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A key of the account service's shape; each verifies with the default ttl given here. */
export function apiKey(mode: 'live' | 'test' = 'live'): string {
  return `sgw_${mode}_${Array.from({ length: 40 }, () => ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)]).join('')}`;
}

export function storedMessage(over: Partial<message.Message__Output> = {}): message.Message__Output {
  return {
    messageId: newId('msg'),
    clientId: CLIENT,
    deviceId: 'device_A',
    batchId: '',
    mode: 'MODE_LIVE',
    status: 'queued',
    to: '+33612345678',
    text: 'Bonjour',
    priority: 3,
    metadataJson: '',
    webhookUrl: '',
    parts: 1,
    encoding: 'GSM-7',
    createdAt: T0,
    queuedAt: T0,
    scheduledAt: '',
    sentAt: '',
    deliveredAt: '',
    failedAt: '',
    cancelledAt: '',
    errorCode: '',
    errorMessage: '',
    expiresAt: '',
    pinned: false,
    attempts: [],
    sim: 0,
    requestedSim: 0,
    replies: false,
    campaignId: '',
    noReport: false,
    ...over,
  };
}

/** A received SMS of the client, live, as the message service stores it. */
export function storedReceived(over: Partial<message.ReceivedMessage__Output> = {}): message.ReceivedMessage__Output {
  return {
    id: `rcv_${newId('msg').slice(4)}`,
    clientId: CLIENT,
    mode: 'MODE_LIVE',
    deviceId: 'device_A',
    sim: 0,
    from: '+33698765432',
    text: 'Bonjour',
    receivedAt: T0,
    createdAt: T0,
    ...over,
  };
}

/**
 * The gateway's real app (authentication with its cache, rate limit,
 * idempotency, the device directory) on real Redis under a prefix of its
 * own, with stand-ins for the gRPC services that record what they are asked.
 */
export class FleetGateway {
  readonly redis: Redis;
  base = '';
  /** The default ttl each key verifies with (set before its first request: verified keys are cached). */
  readonly defaultTtl = new Map<string, number>();
  /** What the answers kept for Idempotency-Key replays may take in Redis (tests of the bounds set their own before start). */
  idempotencyBudget = { maxAnswerBytes: 32 * 1024, clientBytes: 2 * 1024 * 1024, totalBytes: 64 * 1024 * 1024 };
  /** The limits each key verifies with (set before its first request): scopes, address ranges, daily quota. */
  readonly keyLimits = new Map<string, { scopes?: string[]; ipRanges?: string[]; dailyQuota?: number }>();
  /** Added to the clock of the keys' daily quotas (a test moves to the next day with it). */
  clockOffsetMs = 0;
  /** What the stand-in message service makes of the next single send: a replay of an earlier one, or a failure. */
  nextSendOutcome: { replayed: true } | { error: unknown } | undefined;
  /** Set before start: the gateway runs as behind these proxies (TLS_MODE=proxy), believing their X-Forwarded-* headers. */
  trustedProxies?: TrustedProxies;
  /** Keys the stand-in account service refuses from now on (INVALID_API_KEY), as revoked. */
  readonly revoked = new Set<string>();
  /** The client's devices (getDevice knows them all; listDevices answers them all, or the online ones). */
  devices: Partial<devicehub.Device__Output>[] = [];
  depths: Record<string, number> = {};
  message: message.Message__Output = storedMessage();
  readonly getDeviceCalls: string[] = [];
  readonly sends: message.SendRequest[] = [];
  readonly batches: message.SendBatchRequest[] = [];
  readonly otps: otp.SendOtpRequest[] = [];
  /** The received SMS the message service stand-in holds (every client and mode: it filters as the real one). */
  received: message.ReceivedMessage__Output[] = [];
  /** What ListReceived, GetReceived and GetStats were asked. */
  readonly inboxCalls: message.ListReceivedRequest[] = [];
  readonly receivedCalls: message.GetReceivedRequest[] = [];
  readonly statsCalls: message.GetStatsRequest[] = [];
  /** The suppression lists the message service stand-in holds (every client and mode), and what it was asked. */
  optOuts: (message.OptOut__Output & { clientId: string; mode: message.Mode })[] = [];
  readonly optOutCalls: { rpc: 'list' | 'add' | 'remove'; req: message.ListOptOutsRequest | message.OptOutRequest }[] = [];
  private server?: http.Server;

  constructor() {
    this.redis = createRedis({ url: REDIS_URL, keyPrefix: `smsgw:t${randomHex(5)}:`, name: 'gateway-test' });
  }

  private upstreams(): Upstreams {
    const known = (deviceId: string) => {
      const device = this.devices.find((d) => d.deviceId === deviceId);
      if (!device) throw new AppError('INVALID_DEVICE_ID');
      return { clientId: CLIENT, name: 'Pixel', status: 'online', sims: [], ...device };
    };
    const devices = {
      getDevice: async (req: devicehub.GetDeviceRequest) => {
        this.getDeviceCalls.push(req.deviceId!);
        return known(req.deviceId!);
      },
      listDevices: async (req: devicehub.ListDevicesRequest) => ({
        devices: this.devices.filter((d) => !req.onlineOnly || d.status === 'online').map((d) => known(d.deviceId!)),
      }),
    } as unknown as Upstreams['devices'];
    const receipt = (req: message.SendRequest) => ({
      messageId: newId('msg'),
      status: 'queued',
      parts: 1,
      encoding: 'GSM-7',
      queuedAt: T0,
      scheduledAt: req.scheduledAt ?? '',
      estimatedDelivery: T0,
      replayed: false,
      deviceId: req.deviceId ?? '',
    });
    return {
      accounts: {
        verifyApiKey: async (req: { apiKey: string; clientId: string }) => {
          if (this.revoked.has(req.apiKey)) throw new AppError('INVALID_API_KEY');
          return {
            clientId: req.clientId,
            mode: req.apiKey.startsWith('sgw_test_') ? 'KEY_MODE_TEST' : 'KEY_MODE_LIVE',
            keyId: `key_${req.apiKey.slice(-12)}`,
            defaultTtlSeconds: this.defaultTtl.get(req.apiKey) ?? 0,
            scopes: this.keyLimits.get(req.apiKey)?.scopes ?? [],
            ipRanges: this.keyLimits.get(req.apiKey)?.ipRanges ?? [],
            dailyQuota: this.keyLimits.get(req.apiKey)?.dailyQuota ?? 0,
          };
        },
      } as unknown as Upstreams['accounts'],
      devices,
      messages: {
        queueDepths: async () => ({ depths: this.depths }),
        sendBatch: async (req: message.SendBatchRequest) => {
          this.batches.push(req);
          const batchId = newId('batch');
          const messages = req.messages!.map((m, i) =>
            storedMessage({
              batchId,
              to: m.to,
              deviceId: req.deviceIds![i],
              expiresAt: req.ttlSeconds![i] ? T0 : '',
              // As the message service stores it: sim is the requested one until a phone takes it.
              sim: req.sims?.[i] ?? 0,
              requestedSim: req.sims?.[i] ?? 0,
              replies: req.replies ?? false,
            }),
          );
          return { batchId, messages, queuedAt: T0, replayed: false };
        },
        getMessage: async () => this.message,
        listMessages: async () => ({ messages: [this.message], page: 1, perPage: 50, totalPages: 1, totalItems: 1 }),
        ...this.inboxHandlers(),
        ...this.optOutHandlers(),
      } as unknown as Upstreams['messages'],
      otp: {
        sendOtp: async (req: otp.SendOtpRequest) => {
          this.otps.push(req);
          return { otpId: newId('otp'), to: req.to, expiresAt: T0, messageId: newId('msg'), status: 'queued', replayed: false };
        },
      } as unknown as Upstreams['otp'],
      directory: new DeviceDirectory(devices, new TickPipeline(this.redis), 60_000),
      sends: {
        send: async (req: message.SendRequest) => {
          this.sends.push(req);
          const outcome = this.nextSendOutcome;
          this.nextSendOutcome = undefined;
          if (outcome && 'error' in outcome) throw outcome.error;
          return { ...receipt(req), replayed: outcome?.replayed === true };
        },
      },
      keyUsage: new KeyUsageStore(new TickPipeline(this.redis), () => Date.now() + this.clockOffsetMs),
    };
  }

  /** ListReceived, GetReceived and GetStats as the message service answers them: by client and mode, limit 1 to 100. */
  private inboxHandlers() {
    const mine = (req: { clientId?: string; mode?: message.Mode }) =>
      this.received.filter((r) => r.clientId === req.clientId && r.mode === req.mode);
    return {
      listReceived: async (req: message.ListReceivedRequest) => {
        this.inboxCalls.push(req);
        if (req.limit! > 100) throw new AppError('INVALID_PAGINATION', { details: [{ field: 'limit', code: 'INVALID_PAGINATION' }] });
        if (req.fromDate && Number.isNaN(Date.parse(req.fromDate))) throw new AppError('INVALID_DATE');
        const found = mine(req).filter((r) => (!req.from || r.from === req.from) && (!req.deviceId || r.deviceId === req.deviceId));
        const page = found.slice((req.page! - 1) * req.limit!, req.page! * req.limit!);
        const totalPages = Math.ceil(found.length / req.limit!);
        return { messages: page, page: req.page, perPage: req.limit, totalPages, totalItems: found.length };
      },
      getReceived: async (req: message.GetReceivedRequest) => {
        this.receivedCalls.push(req);
        const found = mine(req).find((r) => r.id === req.id);
        if (!found) throw new AppError('RECEIVED_NOT_FOUND');
        return found;
      },
      getStats: async (req: message.GetStatsRequest) => {
        this.statsCalls.push(req);
        const day = (date: string, received: number) => ({ date, sent: 2, delivered: 1, failed: 1, received });
        return {
          from: '2030-01-14T00:00:00.000Z',
          to: '2030-01-15T23:59:59.999Z',
          totalSent: 4,
          delivered: 2,
          failed: 2,
          pending: 0,
          deliveryRate: 50,
          byDay: [day('2030-01-14', 0), day('2030-01-15', mine(req).length)],
          received: mine(req).length,
        };
      },
    };
  }

  /** ListOptOuts, AddOptOut and RemoveOptOut as the message service answers them: by client and mode, limit 1 to 100, the first entry kept. */
  private optOutHandlers() {
    const mine = (req: { clientId?: string; mode?: message.Mode }) =>
      this.optOuts.filter((o) => o.clientId === req.clientId && o.mode === req.mode);
    const entry = ({ phoneNumber, source, keyword, createdAt }: message.OptOut__Output) => ({ phoneNumber, source, keyword, createdAt });
    return {
      listOptOuts: async (req: message.ListOptOutsRequest) => {
        this.optOutCalls.push({ rpc: 'list', req });
        if (req.limit! > 100) throw new AppError('INVALID_PAGINATION', { details: [{ field: 'limit', code: 'INVALID_PAGINATION' }] });
        const found = mine(req);
        return {
          optOuts: found.slice((req.page! - 1) * req.limit!, req.page! * req.limit!).map(entry),
          page: req.page,
          perPage: req.limit,
          totalPages: Math.ceil(found.length / req.limit!),
          totalItems: found.length,
        };
      },
      addOptOut: async (req: message.OptOutRequest) => {
        this.optOutCalls.push({ rpc: 'add', req });
        const known = mine(req).find((o) => o.phoneNumber === req.phoneNumber);
        if (known) return entry(known);
        const added = {
          clientId: req.clientId!,
          mode: req.mode as message.Mode,
          phoneNumber: req.phoneNumber!,
          source: req.source!,
          keyword: '',
          createdAt: T0,
        };
        this.optOuts.unshift(added);
        return entry(added);
      },
      removeOptOut: async (req: message.OptOutRequest) => {
        this.optOutCalls.push({ rpc: 'remove', req });
        const known = mine(req).find((o) => o.phoneNumber === req.phoneNumber);
        if (!known) throw new AppError('OPT_OUT_NOT_FOUND');
        this.optOuts = this.optOuts.filter((o) => o !== known);
        return { removed: true };
      },
    };
  }

  /** `listen`: GET /v1/events/listen's NATS and slots (made on this gateway's Redis); without it the route answers 503. */
  async start(listen?: (redis: Redis) => ListenDeps): Promise<void> {
    await this.redis.connect();
    const app = createApp({
      upstreams: this.upstreams(),
      log: createLogger('gateway-test', 'silent'),
      redis: this.redis,
      pipeline: new TickPipeline(this.redis),
      auth: { ttlMs: 5000, negativeTtlMs: 1000, failures: { limit: 100, windowMs: 60_000 } },
      readiness: async () => ({ ready: true, checks: {} }),
      rateLimit: { limit: 10_000, windowMs: 60_000 },
      idempotencyTtlSeconds: 60,
      idempotencyBudget: this.idempotencyBudget,
      idempotencyInProgressSeconds: 3,
      allowPrivateWebhooks: false,
      trustedProxies: this.trustedProxies,
      listen: listen?.(this.redis),
    });
    this.server = http.createServer(app.callback());
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
    const prefix = this.redis.options.keyPrefix ?? '';
    const keys = await this.redis.keys(`${prefix}*`);
    if (keys.length > 0) await this.redis.del(...keys.map((k) => k.slice(prefix.length)));
    this.redis.disconnect();
  }

  async call(
    method: string,
    path: string,
    options: { key: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: ApiBody }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        'x-api-key': options.key,
        'x-client-id': CLIENT,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    return { status: res.status, body: (await res.json()) as ApiBody };
  }
}
