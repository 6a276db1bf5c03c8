// Over 300 lines: the hub's composition root. Every store, session rule, job and server is built,
// started and stopped here in one order that must be read together (start-up and SIGTERM).
import './instrumentation';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  connectNats,
  createClient,
  createLogger,
  createPool,
  createRedis,
  gauge,
  ensureStream,
  migrate,
  reusedFor,
  runMain,
  startGrpcService,
  streamConfigs,
  timerLoop,
  TickPipeline,
  type Logger,
} from '@smsgw/platform';
import { stopTelemetry } from '@smsgw/platform/telemetry';
import { accountProto, deviceHubProto, messageProto, type account, type message } from '@smsgw/proto';
import { loadDeviceHubConfig, type DeviceHubConfig } from './config';
import { DeviceRepository } from './data/device.repository';
import { FrameBudgetStore } from './data/frame-budget.store';
import { LastSeenWriter } from './data/last-seen.writer';
import { PairingAttemptStore } from './data/pairing-attempts.store';
import { PresenceStore } from './data/presence.store';
import { UsageStore } from './data/usage.store';
import { FailoverDelays, FailoverSweep } from './jobs/failover-sweep';
import { scryptDevicePasswords } from './domain/device-password-hash';
import { otherPhoneOnline } from './use-cases/devices.use-case';
import { authenticateDevice, batchedTokenFinder, pairDevice, type PairingDeps } from './use-cases/pairing.use-case';
import { deviceHubHandlers, deviceHubCallers, type DeviceHubDeps } from './grpc/device-hub.handlers';
import { createAgentServer } from './http/agent-server';
import { readTicketKeys, TicketKeyRing } from './http/ticket-keys';
import { unreadyDependencies, watchNats, watchRedis } from './http/readiness';
import { DeviceEventPublisher } from './events/device-event.publisher';
import { ReceivedPublisher } from './events/received.publisher';
import { ReportPublisher } from './events/report.publisher';
import { MessageCalls } from './sessions/message-calls';
import { AgentSession, type SessionDeps } from './sessions/agent-session';
import { TestModeSimulator } from './sessions/test-mode.simulator';
import { SessionRegistry } from './sessions/session-registry';
import { SimRules } from './sessions/sim-rules';
import { SimHealthRepository } from './data/sim-health.repository';
import { SimHealthWriter } from './data/sim-health.writer';
import { DiagnosticsRepository } from './data/diagnostics.repository';
import { TelemetryRepository } from './data/telemetry.repository';
import { PhoneAlertPublisher } from './events/phone-alert.publisher';
import { FleetSettingsRepository } from './data/fleet-settings.repository';
import { warnOfflinePhones } from './jobs/offline-alert-sweep';
import { phoneMetrics } from './jobs/phone-metrics';

const MIGRATIONS = path.resolve(__dirname, '../migrations');

export async function start(
  config: DeviceHubConfig = loadDeviceHubConfig(),
  log: Logger = createLogger('device-hub'),
  // The hub's clock: limits, hours and the failover delay read it (tests may move it).
  clock: () => number = Date.now,
) {
  // Read before any connection: a bad file stops the start at once.
  const ticketKeysFile = config.agents.ticketKeysFile;
  const keysAtStart = ticketKeysFile === undefined ? undefined : readTicketKeys(ticketKeysFile);
  const ticketKeys = keysAtStart && new TicketKeyRing(keysAtStart);
  const pool = createPool({
    url: config.database.url,
    log,
    schema: config.database.schema,
    max: config.database.poolMax,
    applicationName: 'device-hub',
  });
  const redis = createRedis({ url: config.redis.url, keyPrefix: config.redis.keyPrefix, name: 'device-hub' });
  await redis.connect();
  const nats = await connectNats({ ...config.nats, name: 'device-hub', log });
  const messages = createClient<message.MessageServiceClient>(messageProto().MessageService, config.messageAddress, {
    tls: config.grpcTls,
  });
  const accounts = createClient<account.AccountServiceClient>(accountProto().AccountService, config.accountAddress, {
    tls: config.grpcTls,
  });
  const repo = new DeviceRepository(pool);
  const presence = new PresenceStore(redis, config.presenceTtlMs, clock, {
    onWriteFailed: (err, phones) => log.warn({ err, phones }, 'presence not written; the next pongs write it again'),
  });
  const usage = new UsageStore(redis);
  // The phones' frames within their budgets: the takes of one turn of the event loop share a round trip.
  const budgets = new FrameBudgetStore(new TickPipeline(redis), config.budgets, clock);
  const sessions = new SessionRegistry(nats, log);
  // The revocation order over NATS is fast but may be lost; this check, on every replica, is what
  // makes sure a removed or revoked phone does not stay connected.
  const credentialCheck = timerLoop({
    name: 'hub-credential-check',
    intervalMs: config.credentialCheckMs,
    tick: () => sessions.closeRevoked((tokenIds) => repo.liveTokens(tokenIds)),
    log,
  });
  // Every replica sweeps (ReleaseDevice is idempotent): a phone offline past its client's delay,
  // or removed, has its unpinned messages opened to the client's other phones.
  const delays = new FailoverDelays(accounts, clock);
  const simRules = new SimRules(accounts, clock);
  const sweep = new FailoverSweep({ messages, repo, presence, delays, clock, log, fullSweepMs: config.failoverFullSweepMs });
  const failoverSweep = timerLoop({
    name: 'hub-failover-sweep',
    intervalMs: config.failoverSweepMs,
    tick: () => sweep.run(),
    log,
  });
  gauge('hub.connected_phones', 'Phones connected to this hub replica (sum over replicas: phones online)', (r) => r.observe(sessions.size));
  const reports = new ReportPublisher(nats, config.dispatch.reportWindowMs);
  const calls = new MessageCalls(messages, log, config.dispatch.batchWindowMs);
  const received = new ReceivedPublisher(nats);
  const testMode = new TestModeSimulator(messages, nats, reports, { ...config.testMode, leaseMs: config.dispatch.leaseMs }, log);

  let agentPort = config.agents.port;
  const publicUrl = () => config.agents.publicUrl ?? `https://127.0.0.1:${agentPort}`;
  const pairing: PairingDeps = {
    repo,
    attempts: new PairingAttemptStore(redis),
    passwords: scryptDevicePasswords,
    settings: config.pairing,
  };
  // One finder for every connection: the phones connecting together are looked up together.
  const tokens = batchedTokenFinder(repo);
  const simHealth = new SimHealthRepository(pool);
  // The SIMs not healthy, read again at most every 5 s: the automatic choice passes them by.
  const unhealthySims = reusedFor(5000, () => simHealth.unhealthy());
  gauge(
    'hub.sims_quarantined',
    'SIMs quarantined or probing now, of every phone (the same on each replica: read one, or the max)',
    async (r) => {
      const bySlot = [...(await unhealthySims()).values()].flat();
      r.observe(bySlot.filter((h) => h.state === 'quarantined').length, { state: 'quarantined' });
      r.observe(bySlot.filter((h) => h.state === 'probing').length, { state: 'probing' });
    },
  );
  const lastSeen = new LastSeenWriter(repo);
  const lastSeenWrites = timerLoop({ name: 'hub-last-seen', intervalMs: 1000, tick: () => lastSeen.flush(), log });
  // The file again (a Secret the secrets Job rotated): a bad one leaves the keys as they were.
  const ticketKeysReload = timerLoop({
    name: 'hub-ticket-keys',
    intervalMs: config.agents.ticketKeysReloadMs,
    tick: async () => {
      if (!ticketKeys || ticketKeysFile === undefined) return;
      try {
        const next = readTicketKeys(ticketKeysFile);
        if (next && ticketKeys.update(next))
          log.info({ previous_kept: next.length > 48 }, 'TLS session-ticket keys read again: they changed');
      } catch (err) {
        log.warn({ err }, 'TLS session-ticket keys not read again: the file is not valid; the keys stay as they were');
      }
    },
    log,
  });
  const limitsReload = timerLoop({
    name: 'hub-limits-reload',
    intervalMs: config.limitsReloadMs,
    tick: () => sessions.reloadAllLimits((ids) => repo.findMany(ids)),
    log,
  });
  const deviceEvents = new DeviceEventPublisher(nats, lastSeen);
  const simHealthWriter = new SimHealthWriter(simHealth, (err) => log.warn({ err }, "a SIM's change of health not stored"));
  const simHealthWrites = timerLoop({ name: 'hub-sim-health', intervalMs: 5000, tick: () => simHealthWriter.flush(), log });
  // Issue 38: the phones' telemetry (a day of it), logs and settings, and the warnings they raise.
  const telemetry = new TelemetryRepository(pool);
  const diagnostics = new DiagnosticsRepository(pool);
  const phoneAlerts = new PhoneAlertPublisher(nats);
  // The owner's warning of a phone offline past the account's delay: one query a pass, on every replica.
  const fleetSettings = new FleetSettingsRepository(pool);
  const offlineAlerts = timerLoop({
    name: 'hub-offline-alerts',
    intervalMs: config.offlineAlert.sweepMs,
    tick: () =>
      warnOfflinePhones({
        repo: fleetSettings,
        presence,
        publishOffline: (phone, since) => phoneAlerts.offline(phone, since, new Date(clock())),
        defaultSeconds: config.offlineAlert.defaultSeconds,
        clock,
        log,
      }),
    log,
  });
  phoneMetrics(sessions);
  const telemetryPurge = timerLoop({
    name: 'hub-telemetry-purge',
    intervalMs: config.telemetryPurgeMs,
    tick: async () => {
      while ((await telemetry.purge(clock())) > 0);
    },
    log,
  });
  // What every phone's session uses, made once: 20,000 sessions need not each hold a copy.
  const sessionDeps: SessionDeps = {
    messages,
    calls,
    reports,
    received,
    presence,
    usage,
    budgets,
    simRules,
    config,
    log,
    clock,
    publishDeviceEvent: (kind, of, reason) => deviceEvents.publish(kind, of, reason),
    loadDevice: (deviceId) => repo.find(deviceId),
    otherPhoneOnline: (of) => otherPhoneOnline({ repo, presence }, of),
    storeSims: (deviceId, sims) => repo.setSims(deviceId, sims),
    simHealth,
    simHealthWriter,
    publishSimEvent: (kind, of, health, how) => deviceEvents.publishSim(kind, of, health, how),
    releaseQuarantined: async (of) => {
      const result = await messages.releaseDevice({ clientId: of.client_id, deviceId: of.device_id, reason: 'RELEASE_REASON_QUARANTINED' });
      if (result.moved + result.failed > 0)
        log.info({ device_id: of.device_id, moved: result.moved }, "quarantined phone's messages released");
    },
    telemetry,
    diagnostics,
    publishBatteryLow: (of, t, at) => phoneAlerts.batteryLow(of, t, at),
  };

  // Back from an outage: wake-ups sent meanwhile were lost, and idle phones may be in a long wait.
  const natsConnected = watchNats(nats, () => sessions.wakeAll());
  // Back from a Redis restart: the phones' presence is gone until each one's next pong.
  watchRedis(redis, () => {
    sessions
      .refreshPresence()
      .then((written) => log.info({ phones: written }, 'presence written again after Redis came back'))
      .catch((err: unknown) => log.warn({ err }, 'presence not written again after Redis came back'));
  });
  const unready = unreadyDependencies(pool, redis, natsConnected);

  const agentServer = createAgentServer({
    unready,
    tls: config.agents.tls,
    ticketKeys,
    log,
    pair: (body, clientAddress) => pairDevice(pairing, body, clientAddress),
    authenticate: (token) => authenticateDevice({ tokens }, token),
    wsUrl: () => `${publicUrl().replace(/^https:/, 'wss:')}/v1/agent`,
    onConnection(ws, { device, tokenId }, socket) {
      const session = new AgentSession(ws, device, sessionDeps, socket);
      sessions.add(session, tokenId);
      void session.start();
    },
  });

  const hubDeps: DeviceHubDeps = {
    repo,
    presence,
    usage,
    sessions,
    messages,
    received,
    telemetry,
    diagnostics,
    simHealth,
    passwords: scryptDevicePasswords,
    settings: { ...config.pairing, publicUrl },
    health: { of: (ids) => simHealth.of(ids), unhealthy: unhealthySims },
    publishRecovered: (of, sim) => deviceEvents.publishSim('device.recovered', of, sim, 'manual'),
    fleet: { repo: fleetSettings, devices: repo, sessions, defaultOfflineSeconds: config.offlineAlert.defaultSeconds },
    clock,
    log,
  };
  const grpcServer = await startGrpcService({
    listen: config.grpc,
    tls: config.grpcTls,
    callers: deviceHubCallers,
    name: 'smsgw.devicehub.v1.DeviceHubService',
    definition: deviceHubProto().DeviceHubService.service,
    handlers: deviceHubHandlers(hubDeps),
    log,
  });
  await migrate(pool, { schema: config.database.schema, dir: MIGRATIONS, log });
  const streams = streamConfigs(nats.names, config.nats.streamReplicas, config.nats.streamMaxBytes);
  await ensureStream(nats.jsm, streams.reports);
  await ensureStream(nats.jsm, streams.reportBatches);
  await ensureStream(nats.jsm, streams.events);
  // A fleet coming back after a restart connects all at once: a deep accept queue (Node's default
  // is 511; the kernel caps it at net.core.somaxconn) keeps their SYNs from being dropped and retried.
  await new Promise<void>((resolve) => agentServer.listen({ port: config.agents.port, host: config.agents.host, backlog: 4096 }, resolve));
  agentPort = (agentServer.address() as AddressInfo).port;
  testMode.start();
  credentialCheck.start();
  failoverSweep.start();
  lastSeenWrites.start();
  simHealthWrites.start();
  ticketKeysReload.start();
  limitsReload.start();
  telemetryPurge.start();
  offlineAlerts.start();
  // From now on, readiness follows the NATS connection.
  grpcServer.ready({ nats });
  log.info({ grpc_port: grpcServer.port, agent_port: agentPort, public_url: publicUrl() }, 'device-hub ready');

  return {
    port: grpcServer.port,
    healthPort: grpcServer.healthPort,
    agentPort,
    async stop() {
      agentServer.close();
      await credentialCheck.stop();
      await failoverSweep.stop();
      await limitsReload.stop();
      await telemetryPurge.stop();
      await offlineAlerts.stop();
      await sessions.closeAll();
      await lastSeenWrites.stop();
      await ticketKeysReload.stop();
      await lastSeen.flush().catch((err: unknown) => log.warn({ err }, 'last seen times not written'));
      await simHealthWrites.stop();
      await simHealthWriter.flush().catch((err: unknown) => log.warn({ err }, "SIMs' results not written"));
      await testMode.stop();
      await grpcServer.stop();
      messages.close();
      accounts.close();
      await nats.nc.drain();
      await pool.end();
      redis.disconnect();
      await stopTelemetry();
    },
  };
}

if (require.main === module) {
  const log = createLogger('device-hub');
  runMain(log, () => start(loadDeviceHubConfig(), log));
}
