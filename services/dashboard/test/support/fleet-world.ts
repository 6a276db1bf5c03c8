import { AppError, NO_DEVICE_LIMITS, type GrpcService } from '@smsgw/platform';
import type { account, devicehub, message } from '@smsgw/proto';
import { Browser, startDashboard, type DashboardUnderTest } from './harness';
import { stubService, type Calls } from './stubs';

export const PASSWORD = 'a long enough password';

/** Two owners, each with a client and a phone, held by the stand-ins. */
export const OWNERS = {
  a: { userId: 'user_a', clientId: 'client_a', email: 'a@example.com', deviceId: 'device_a1' },
  b: { userId: 'user_b', clientId: 'client_b', email: 'b@example.com', deviceId: 'device_b1' },
};

const NO_LIMITS: devicehub.DeviceLimits__Output = NO_DEVICE_LIMITS;

/** The account service's fleet refusal the stand-in plays for this delay (its own bounds check). */
export const REFUSED_DELAY = 4321;
export const HUB_REFUSAL = 'La limite par minute ne peut dépasser la limite par heure.';

export interface FleetWorld {
  dashboard: DashboardUnderTest;
  calls: { account: Calls; hub: Calls; message: Calls };
  clients: Map<string, account.Client__Output>;
  devices: Map<string, devicehub.Device__Output>;
  messages: Map<string, message.Message__Output>;
  /** The settings for all phones saved, by client. */
  fleetSettings: Map<string, devicehub.FleetSettings__Output>;
  /** A browser signed in as owner `who`. */
  signedIn(who: keyof typeof OWNERS): Promise<Browser>;
  /** Forgets the calls recorded so far. */
  clearCalls(): void;
  stop(): Promise<void>;
}

const notFound = (code: 'INVALID_DEVICE_ID' | 'MESSAGE_NOT_FOUND' | 'NOT_FOUND') => new AppError(code);

/**
 * The dashboard with stand-ins for the account, device-hub and message services that answer
 * from maps the tests fill: each refuses another client's phone or message, as the contracts say.
 * `more` adds (or replaces) message and account service methods for a test of its own.
 */
export async function startFleetWorld(
  more: { message?: Record<string, (req: never) => Promise<unknown>>; account?: Record<string, (req: never) => Promise<unknown>> } = {},
): Promise<FleetWorld> {
  const clients = new Map<string, account.Client__Output>();
  const devices = new Map<string, devicehub.Device__Output>();
  const messages = new Map<string, message.Message__Output>();
  for (const o of Object.values(OWNERS)) {
    clients.set(o.clientId, {
      clientId: o.clientId,
      email: o.email,
      name: o.clientId,
      createdAt: '2026-11-01T00:00:00.000Z',
      emailVerified: true,
      accountVerified: true,
      defaultTtlSeconds: 7200,
      failoverDelaySeconds: 60,
      simRule: 'round_robin',
      defaultSim: 1,
      smsCountries: [],
      otpCountries: [],
      otpNumberTypes: [],
      requireTwoFactor: false,
    });
    devices.set(o.deviceId, {
      deviceId: o.deviceId,
      clientId: o.clientId,
      name: `Phone of ${o.clientId}`,
      status: 'online',
      lastSeenAt: '2026-11-25T07:00:00.000Z',
      createdAt: '2026-11-01T00:00:00.000Z',
      limits: { ...NO_LIMITS },
      usage: { lastMinute: 0, lastHour: 0, lastDay: 0 },
      hasRoom: true,
      sims: [],
      simHealthSettings: { consecutiveFailures: 5, failureRatio: 50, window: 20, minSample: 10, coolDownSeconds: 900 },
      simHealth: [],
      simHealthOwn: false,
    });
  }
  // The settings for all phones, by client (the hub's defaults until saved).
  const fleetSettings = new Map<string, devicehub.FleetSettings__Output>();
  const fleetOf = (clientId: string) =>
    fleetSettings.get(clientId) ?? {
      offlineAlertSeconds: 1800,
      simHealth: { consecutiveFailures: 5, failureRatio: 50, window: 20, minSample: 10, coolDownSeconds: 900 },
    };
  const users = Object.values(OWNERS);
  const calls = { account: {} as Calls, hub: {} as Calls, message: {} as Calls };
  const ownDevice = (clientId: string, deviceId: string) => {
    const d = devices.get(deviceId);
    if (!d || d.clientId !== clientId) throw notFound('INVALID_DEVICE_ID');
    return d;
  };
  const started: GrpcService[] = [];
  started.push(
    await stubService(
      'account',
      {
        SignIn: async (req: account.SignInRequest__Output) => {
          const user = users.find((u) => u.email === req.email && req.password === PASSWORD);
          return user ? { userId: user.userId, clientId: user.clientId, email: user.email } : { userId: '', clientId: '', email: '' };
        },
        GetUser: async (req: account.GetUserRequest__Output) => {
          const user = users.find((u) => u.userId === req.userId);
          if (!user) throw notFound('NOT_FOUND');
          return {
            userId: user.userId,
            clientId: user.clientId,
            email: user.email,
            role: 'owner',
            twoFactor: false,
            twoFactorRequired: false,
          };
        },
        RecordAuditEvent: async () => ({}),
        GetClient: async (req: account.GetClientRequest__Output) => clients.get(req.clientId) ?? Promise.reject(notFound('NOT_FOUND')),
        UpdateClient: async (req: account.UpdateClientRequest__Output) => {
          const c = clients.get(req.clientId)!;
          if (req.setFleet && req.failoverDelaySeconds === REFUSED_DELAY)
            throw new AppError('VALIDATION_ERROR', {
              details: [{ field: 'failover_delay_seconds', message: 'Délai refusé par le service.' }],
            });
          if (req.setFleet) Object.assign(c, { defaultTtlSeconds: req.defaultTtlSeconds, failoverDelaySeconds: req.failoverDelaySeconds });
          if (req.setSimRule) Object.assign(c, { simRule: req.simRule, defaultSim: req.defaultSim });
          return c;
        },
        ...more.account,
      },
      calls.account,
    ),
  );
  started.push(
    await stubService(
      'device-hub',
      {
        ListDevices: async (req: devicehub.ListDevicesRequest__Output) => ({
          devices: [...devices.values()].filter((d) => d.clientId === req.clientId),
        }),
        GetDevice: async (req: devicehub.GetDeviceRequest__Output) => ownDevice(req.clientId, req.deviceId),
        SetDeviceLimits: async (req: devicehub.SetDeviceLimitsRequest__Output) => {
          const d = ownDevice(req.clientId, req.deviceId);
          const l = req.limits!;
          if (l.perMinute > 0 && l.perHour > 0 && l.perMinute > l.perHour)
            throw new AppError('VALIDATION_ERROR', {
              details: [{ field: 'limits.per_minute', code: 'INVALID_PARAMETER', message: HUB_REFUSAL }],
            });
          d.limits = { ...l };
          return d;
        },
        GetFleetSettings: async (req: devicehub.GetFleetSettingsRequest__Output) => fleetOf(req.clientId),
        SetFleetSettings: async (req: devicehub.SetFleetSettingsRequest__Output) => {
          if (req.offlineAlertSeconds > 7 * 86_400)
            throw new AppError('VALIDATION_ERROR', { details: [{ field: 'offline_alert_seconds', code: 'VALIDATION_ERROR' }] });
          fleetSettings.set(req.clientId, { offlineAlertSeconds: req.offlineAlertSeconds, simHealth: req.simHealth });
          for (const d of devices.values()) if (d.clientId === req.clientId && !d.simHealthOwn) d.simHealthSettings = req.simHealth;
          return fleetOf(req.clientId);
        },
        SetSimHealth: async (req: devicehub.SetSimHealthRequest__Output) => {
          const d = ownDevice(req.clientId, req.deviceId);
          d.simHealthOwn = !req.followAccount;
          d.simHealthSettings = req.followAccount ? fleetOf(req.clientId).simHealth : req.settings;
          return d;
        },
      },
      calls.hub,
    ),
  );
  started.push(
    await stubService(
      'message',
      {
        QueueDepths: async (req: message.QueueDepthsRequest__Output) => ({
          depths: Object.fromEntries(req.deviceIds.map((id) => [id, 2])),
          // device_a1's digests repaired three messages (protocol 7); the others' none.
          repairs: req.withRepairs ? { device_a1: { reportApplied: 2, sentCorrected: 1, requeued: 0 } } : {},
        }),
        GetStats: async () => ({ totalSent: 0, delivered: 0, failed: 0, deliveryRate: 0, byDay: [], from: '', to: '' }),
        GetMessage: async (req: message.GetMessageRequest__Output) => {
          const m = messages.get(req.messageId);
          if (!m || m.clientId !== req.clientId) throw notFound('MESSAGE_NOT_FOUND');
          return m;
        },
        ...more.message,
      },
      calls.message,
    ),
  );
  const [accounts, hub, messageService] = started;
  const dashboard = await startDashboard({
    ACCOUNT_GRPC_ADDR: `127.0.0.1:${accounts!.port}`,
    DEVICE_HUB_GRPC_ADDR: `127.0.0.1:${hub!.port}`,
    MESSAGE_GRPC_ADDR: `127.0.0.1:${messageService!.port}`,
    GRPC_DEADLINE_MS: '3000',
  });
  return {
    dashboard,
    calls,
    clients,
    devices,
    messages,
    fleetSettings,
    async signedIn(who) {
      const browser = new Browser(dashboard.base);
      await browser.get('/signin');
      const res = await browser.post('/signin', { email: OWNERS[who].email, password: PASSWORD });
      if (res.status !== 302) throw new Error(`sign-in answered ${res.status}`);
      return browser;
    },
    clearCalls() {
      for (const group of Object.values(calls)) for (const k of Object.keys(group)) delete group[k];
    },
    async stop() {
      await dashboard.stop();
      for (const s of started) await s.stop(100);
    },
  };
}
