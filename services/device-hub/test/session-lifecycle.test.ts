import type { AddressInfo } from 'node:net';
import { createClient, createLogger, type GrpcService, type PromiseClient } from '@smsgw/platform';
import { accountProto, messageProto, type account, type message } from '@smsgw/proto';
import { createSandbox, eventually, grpcTlsFor, type Sandbox } from '@smsgw/testing';
import WebSocket, { WebSocketServer } from 'ws';
import type { DeviceRow } from '../src/data/device-row';
import { PresenceStore } from '../src/data/presence.store';
import { UsageStore } from '../src/data/usage.store';
import { FrameBudgetStore } from '../src/data/frame-budget.store';
import { ReceivedPublisher } from '../src/events/received.publisher';
import { ReportPublisher } from '../src/events/report.publisher';
import { MessageCalls } from '../src/sessions/message-calls';
import { AgentSession, type SessionDeps } from '../src/sessions/agent-session';
import { SessionRegistry } from '../src/sessions/session-registry';
import { SimRules } from '../src/sessions/sim-rules';
import { MessageStandIn, startAccountStandIn } from './support/stand-ins';

/**
 * A session's life in the registry, against real Redis (presence), NATS (the registry's wake-up
 * subscriptions) and gRPC stand-ins of the message and account services, over a real WebSocket:
 * a session is forgotten once its phone is gone, and one that cannot start closes its connection.
 */
describe('device-hub sessions: the registry forgets a session once it has ended', () => {
  let sandbox: Sandbox;
  let messages: MessageStandIn;
  let accounts: GrpcService;
  let messageClient: PromiseClient<message.MessageServiceClient>;
  let server: WebSocketServer;
  let registry: SessionRegistry;
  let deps: SessionDeps;
  /** What the next connection's `device.connected` event does: undefined publishes it. */
  let publishFails: Error | undefined;
  let seq = 0;

  const device = (): DeviceRow => ({
    device_id: `dev_${Date.now()}${seq++}`,
    client_id: 'client_lifecycle',
    name: 'phone',
    password_hash: null,
    created_at: new Date(),
    last_seen_at: null,
    limit_per_minute: 0,
    limit_per_hour: 0,
    limit_per_day: 0,
    min_interval_ms: 0,
    max_interval_ms: 0,
    sending_hours_start: '',
    sending_hours_end: '',
    time_zone: 'UTC',
    sims: [],
    sim_health_settings: {},
  });

  beforeAll(async () => {
    sandbox = await createSandbox({ name: 'session-lifecycle', redis: true, nats: true, database: false });
    messages = await MessageStandIn.start();
    accounts = await startAccountStandIn(60);
    messageClient = createClient<message.MessageServiceClient>(messageProto().MessageService, messages.address, {
      tls: grpcTlsFor('device-hub'),
    });
    const log = createLogger('session-lifecycle-test', 'silent');
    const nats = sandbox.nats!;
    const accountClient = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${accounts.port}`, {
      tls: grpcTlsFor('device-hub'),
    });
    deps = {
      messages: messageClient,
      calls: new MessageCalls(messageClient, log, 0),
      reports: new ReportPublisher(nats, 0),
      received: new ReceivedPublisher(nats),
      presence: new PresenceStore(sandbox.redis!, 60_000),
      usage: new UsageStore(sandbox.redis!),
      budgets: new FrameBudgetStore(
        sandbox.redis!,
        {
          windowMs: 60_000,
          received: { device: 120, client: 1200 },
          ack: { device: 1200, client: 120_000 },
          report: { device: 2400, client: 240_000 },
        },
        Date.now,
      ),
      simRules: new SimRules(accountClient, Date.now),
      config: {
        dispatch: {
          minIntervalMs: 0,
          maxIntervalMs: 0,
          leaseMs: 4000,
          sweepMs: 60_000,
          idleSweepMaxMs: 60_000,
          batchWindowMs: 0,
          reportWindowMs: 0,
        },
        pingIntervalMs: 25_000,
      },
      log,
      clock: Date.now,
      publishDeviceEvent: async (kind) => {
        if (kind === 'device.connected' && publishFails) throw publishFails;
      },
      loadDevice: async () => undefined,
      otherPhoneOnline: async () => false,
      storeSims: async () => undefined,
      simHealth: { of: async () => new Map(), save: async () => undefined },
      simHealthWriter: { note: () => undefined, changed: () => undefined },
      publishSimEvent: async () => undefined,
      releaseQuarantined: async () => undefined,
      // Protocol 6 stores nothing here: these phones speak an older protocol.
      telemetry: { record: async () => undefined },
      diagnostics: {
        logReceived: async () => undefined,
        settingsSent: async () => undefined,
        settingsApplied: async () => undefined,
        openBatteryEpisode: async () => false,
        closeBatteryEpisode: async () => undefined,
      },
      publishBatteryLow: async () => undefined,
    };
    registry = new SessionRegistry(nats, log);
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    server.on('connection', (ws, req) => {
      const session = new AgentSession(ws, device(), deps, req.socket);
      registry.add(session, `token_${seq}`);
      void session.start();
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    messageClient?.close();
    await messages?.stop();
    await accounts?.stop(100);
    await sandbox?.cleanUp();
  });

  /** A phone connected to the test's server; resolves with its socket and the frames and close code it saw. */
  async function phone() {
    const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const seen: { frames: Array<Record<string, unknown>>; closeCode?: number } = { frames: [] };
    ws.on('message', (data: Buffer) => seen.frames.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>));
    ws.on('close', (code) => (seen.closeCode = code));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return { ws, seen };
  }

  it('when a phone goes away, then its session is forgotten once its dispatch loop has ended', async () => {
    const before = registry.size;
    const { ws, seen } = await phone();
    await eventually(async () => seen.frames.some((f) => f.type === 'hello'), 5000, 'the hello');
    ws.send(JSON.stringify({ type: 'agent_hello', protocol: 4, driver: 'simulator', sims: [{ slot: 1 }] }));
    // Its loop claims (nothing) and waits for work.
    await eventually(async () => messages.claims.length > 0, 5000, 'a claim');
    expect(registry.size).toBe(before + 1);

    ws.close();

    await eventually(async () => registry.size === before, 5000, 'the session forgotten');
  });

  it('when a session cannot start (its device.connected event not published), then its phone is disconnected and the session forgotten', async () => {
    const before = registry.size;
    publishFails = new Error('nats away');
    try {
      const { seen } = await phone();

      await eventually(async () => seen.closeCode !== undefined, 5000, 'the connection closed by the hub');
      await eventually(async () => registry.size === before, 5000, 'the session forgotten');
    } finally {
      publishFails = undefined;
    }
  });
});
