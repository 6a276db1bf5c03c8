// Over 300 lines: startStack starts the nine services in their order on one shared environment
// (ports, users, addresses, certificates), which each service's process and each extra replica reads.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { ensureCerts, ensureServiceCerts, ensureTicketKeys, type Certs, type ServiceCertFiles } from './certs';
import { SERVICE_IDENTITIES, type GrpcTls, type ServiceIdentity } from '@smsgw/platform';
import { ensureInfra, natsAdminOf, startPrivateServer, type InfraHandle, type PrivateServer } from './infra';
import { startBusUsers, type BusUsers } from './bus-users';
import { startMailCatcher, type CaughtMail, type MailCatcher } from './mail-catcher';
import { freePort } from './ports';
import { grpcServing, httpsHealthy, ServiceProcess, simulatedPhone, simulatedPhoneArgs, type ServiceName } from './services';

export {
  ensureCerts,
  ensureServiceCerts,
  ensureTicketKeys,
  ensureInfra,
  freePort,
  ServiceProcess,
  grpcServing,
  httpsHealthy,
  simulatedPhone,
  simulatedPhoneArgs,
  startMailCatcher,
  startPrivateServer,
};
export type { BusUsers, CaughtMail, Certs, InfraHandle, MailCatcher, PrivateServer, ServiceCertFiles, ServiceName };

export const REPO_ROOT = path.resolve(__dirname, '../../..');

export interface StackOptions {
  /** Where certificates, logs and private infrastructure live. */
  dataDir: string;
  /**
   * A run of its own: a fresh database, NATS subject prefix and Redis key
   * prefix, all removed by stop(). Tests use this; `make dev` does not.
   */
  isolated: boolean;
  /** Fixed ports (make dev); 0 or absent picks free ones. */
  ports?: Partial<
    Record<
      'gateway' | 'agents' | 'account' | 'message' | 'deviceHub' | 'otp' | 'scheduler' | 'webhook' | 'dashboard' | 'smpp' | 'smppHealth',
      number
    >
  >;
  /** Each gRPC service's plaintext health port; absent: its gRPC port + 100 for a fixed gRPC port, else a free one. */
  healthPorts?: Partial<Record<'account' | 'message' | 'deviceHub' | 'otp' | 'scheduler' | 'webhook', number>>;
  /** Each service's `/metrics` port; absent: 9460 onwards for make dev, free ones for an isolated run. */
  metricsPorts?: Partial<Record<ServiceName, number>>;
  /** Postgres, Redis or NATS to use instead of the default ones (e.g. private servers of an outage test). */
  infra?: { postgresUrl?: string; redisUrl?: string; natsUrl?: string };
  /** Extra environment for every service (pacing, log level, ...). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface Stack {
  gatewayUrl: string;
  hubUrl: string;
  certs: Certs;
  accountAddress: string;
  messageAddress: string;
  deviceHubAddress: string;
  otpAddress: string;
  schedulerAddress: string;
  webhookAddress: string;
  dashboardUrl: string;
  /** The SMPP server over TLS (the stack's certificate): its host and port. */
  smpp: { host: string; port: number };
  /** Each service's Prometheus endpoint (`/metrics`). */
  metricsUrls: Record<ServiceName, string>;
  databaseUrl: string;
  /** The run's own NATS, unless one was given: connect as `natsAdmin` (a connection without a user may do nothing). */
  natsUrl: string;
  natsPrefix: string;
  redisUrl: string;
  redisPrefix: string;
  /** Each service's NATS and Redis user; `nats` is undefined when the stack was given a NATS it cannot add users to. */
  busUsers: { nats?: BusUsers['nats']; redis: BusUsers['redis'] };
  /** The NATS user with every right, for tests and tools (undefined when the stack was given a NATS without users). */
  natsAdmin?: { user: string; password: string };
  services: Record<ServiceName, ServiceProcess>;
  logDir: string;
  /** Each gRPC service's plaintext health port (grpc.health.v1.Health only). */
  healthAddresses: Record<'account' | 'message' | 'device-hub' | 'otp' | 'scheduler' | 'webhook', string>;
  /** The certificate files of an identity, signed by the stack's CA: what a test or tool calls internal gRPC with. */
  grpcCredentials(identity: ServiceIdentity): GrpcTls & ServiceCertFiles;
  /** Starts one more gateway replica on a free port (stopped with the stack); returns its URL. */
  addGateway(): Promise<string>;
  /**
   * Starts one more device-hub replica on free ports, with its own agent URL for phones to connect
   * to (stopped with the stack). `tlsMode: 'proxy'` runs it as behind a TLS-ending ingress: plain
   * HTTP, `hubUrl` is `http://`, and a phone must send `X-Forwarded-Proto: https` as the ingress
   * would (from 127.0.0.1, a trusted proxy).
   */
  addDeviceHub(options?: { tlsMode?: 'native' | 'proxy' }): Promise<{ hubUrl: string; process: ServiceProcess }>;
  /** Starts one more scheduler replica on a free port (stopped with the stack); returns it. */
  addScheduler(): Promise<ServiceProcess>;
  /** Restarts one service (same ports and settings). */
  restart(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function createDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
}

/**
 * The OTP keys (OTP_HASH_KEY for the otp service, OTP_SEAL_KEY for the
 * message service): random, kept in the data folder (mode 0600) so that a
 * restart of `make dev` still verifies and delivers earlier OTPs; an
 * isolated run gets keys of its own. Set them in the environment to choose.
 */
function otpSecrets(dataDir: string, isolated: boolean): Record<string, string> {
  const fresh = () => ({ OTP_HASH_KEY: randomBytes(32).toString('base64'), OTP_SEAL_KEY: randomBytes(32).toString('base64') });
  let keys: Record<string, string>;
  const file = path.join(dataDir, 'otp-keys.json');
  if (isolated) {
    keys = fresh();
  } else if (fs.existsSync(file)) {
    keys = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  } else {
    keys = fresh();
    fs.writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  }
  return {
    OTP_HASH_KEY: process.env.OTP_HASH_KEY ?? keys.OTP_HASH_KEY!,
    OTP_SEAL_KEY: process.env.OTP_SEAL_KEY ?? keys.OTP_SEAL_KEY!,
  };
}

/** Starts Postgres/Redis/NATS if needed, then every service as its own process, and waits for all health checks. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const log = options.log ?? (() => undefined);
  fs.mkdirSync(options.dataDir, { recursive: true });
  const runId = options.isolated ? randomBytes(4).toString('hex') : '';
  const natsPrefix = options.isolated ? `t${runId}` : '';
  const redisPrefix = options.isolated ? `smsgw:t${runId}:` : 'smsgw:';
  // One user per service on NATS (a server of the run's own) and Redis.
  const bus = await startBusUsers({ dataDir: options.dataDir, runId, natsPrefix, redisPrefix, natsUrl: options.infra?.natsUrl, log });
  const infra = await ensureInfra({ ...options.infra, natsUrl: bus.natsUrl, dataDir: path.join(options.dataDir, 'infra'), log }).catch(
    async (err: unknown) => {
      await bus.stop();
      throw err;
    },
  );
  const certs = await ensureCerts(path.join(options.dataDir, 'certs'));
  // One gRPC identity per service (and the admin tool's), from the same local CA.
  const serviceCerts = await ensureServiceCerts(path.join(options.dataDir, 'certs'), certs, SERVICE_IDENTITIES);
  // Every hub replica, and a hub started again, resumes the TLS sessions its phones kept.
  const ticketKeysFile = await ensureTicketKeys(path.join(options.dataDir, 'certs'));
  const grpcEnv = (identity: ServiceIdentity) => ({
    GRPC_TLS_CA_FILE: serviceCerts[identity].caFile,
    GRPC_TLS_CERT_FILE: serviceCerts[identity].certFile,
    GRPC_TLS_KEY_FILE: serviceCerts[identity].keyFile,
  });
  const database = options.isolated ? `smsgw_test_${runId}` : 'smsgw';
  await createDatabase(infra.postgresUrl, database);
  const databaseUrl = withDatabase(infra.postgresUrl, database);
  const removeRedisUsers = await bus.addRedisUsers(infra.redisUrl);
  const port = async (key: keyof NonNullable<StackOptions['ports']>) => options.ports?.[key] || (await freePort());
  const ports = {
    account: await port('account'),
    message: await port('message'),
    deviceHub: await port('deviceHub'),
    otp: await port('otp'),
    agents: await port('agents'),
    gateway: await port('gateway'),
    scheduler: await port('scheduler'),
    webhook: await port('webhook'),
    dashboard: await port('dashboard'),
    smpp: await port('smpp'),
    smppHealth: await port('smppHealth'),
  };
  // The plaintext health ports: as given (make dev), else the gRPC port + 100 for fixed ports, free ones otherwise.
  const healthPort = async (key: 'account' | 'message' | 'deviceHub' | 'otp' | 'scheduler' | 'webhook') =>
    options.healthPorts?.[key] || (options.ports?.[key] ? ports[key] + 100 : await freePort());
  const healthPorts = {
    account: await healthPort('account'),
    message: await healthPort('message'),
    deviceHub: await healthPort('deviceHub'),
    otp: await healthPort('otp'),
    scheduler: await healthPort('scheduler'),
    webhook: await healthPort('webhook'),
  };
  // `/metrics` of each service: fixed ports for make dev (9460 onwards, as docs/operators/running-locally.md lists), free ones for tests.
  const METRICS_ORDER: ServiceName[] = ['gateway', 'account', 'message', 'device-hub', 'otp', 'scheduler', 'webhook', 'dashboard', 'smpp'];
  const metricsPorts = Object.fromEntries(
    await Promise.all(
      METRICS_ORDER.map(
        async (name, i) => [name, options.metricsPorts?.[name] ?? (options.isolated ? await freePort() : 9460 + i)] as const,
      ),
    ),
  ) as Record<ServiceName, number>;
  // A service's metrics port, and its own NATS and Redis users.
  const metricsEnv = (name: ServiceName) => ({
    METRICS_PORT: String(metricsPorts[name]),
    METRICS_HOST: '127.0.0.1',
    ...bus.env(name),
  });
  const logDir = path.join(options.dataDir, options.isolated ? `logs-${runId}` : 'logs');
  const addr = (p: number) => `127.0.0.1:${p}`;
  const common = {
    DATABASE_URL: databaseUrl,
    NATS_URL: infra.natsUrl,
    NATS_PREFIX: natsPrefix,
    REDIS_URL: infra.redisUrl,
    REDIS_PREFIX: redisPrefix,
    ACCOUNT_GRPC_ADDR: addr(ports.account),
    MESSAGE_GRPC_ADDR: addr(ports.message),
    DEVICE_HUB_GRPC_ADDR: addr(ports.deviceHub),
    OTP_GRPC_ADDR: addr(ports.otp),
    // OTP secrets: made once per data folder (make dev keeps them across restarts, so sealed texts still open).
    ...otpSecrets(options.dataDir, options.isolated),
    SCHEDULER_GRPC_ADDR: addr(ports.scheduler),
    WEBHOOK_GRPC_ADDR: addr(ports.webhook),
    // Local receivers (tests, a developer's own) live on private addresses with the local CA's certificates.
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    WEBHOOK_EXTRA_CA_FILE: certs.caCertFile,
    TLS_CERT_FILE: certs.certFile,
    TLS_KEY_FILE: certs.keyFile,
    GRPC_HOST: '127.0.0.1',
    // OpenTelemetry's own settings (endpoint, sampler, ...) reach every service.
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('OTEL_') && e[1] !== undefined)),
    ...options.env,
  };
  const entry = (dir: string) => [path.join(REPO_ROOT, dir, 'dist/main.js')];
  const hubUrl = `https://127.0.0.1:${ports.agents}`;
  const gatewayUrl = `https://127.0.0.1:${ports.gateway}`;
  const dashboardUrl = `https://127.0.0.1:${ports.dashboard}`;
  const gatewayProcess = (port: number, n: number) =>
    new ServiceProcess({
      name: 'gateway',
      args: entry('services/gateway'),
      env: {
        ...common,
        ...grpcEnv('gateway'),
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: String(port),
        ...(n === 1 ? metricsEnv('gateway') : bus.env('gateway')),
      },
      logFile: path.join(logDir, n === 1 ? 'gateway.log' : `gateway-${n}.log`),
      ready: () => httpsHealthy(`https://127.0.0.1:${port}/readyz`, certs.caPem),
    });
  /** A hub's agent URL: plain HTTP when it runs as behind a TLS-ending ingress. */
  const agentUrl = (agentPort: number, tlsMode: 'native' | 'proxy') => `${tlsMode === 'proxy' ? 'http' : 'https'}://127.0.0.1:${agentPort}`;
  const hubProcess = (agentPort: number, grpcPort: number, health: number, n: number, tlsMode: 'native' | 'proxy' = 'native') => {
    const url = agentUrl(agentPort, tlsMode);
    return new ServiceProcess({
      name: 'device-hub',
      args: entry('services/device-hub'),
      env: {
        ...common,
        ...grpcEnv('device-hub'),
        GRPC_PORT: String(grpcPort),
        GRPC_HEALTH_PORT: String(health),
        AGENT_HOST: '127.0.0.1',
        AGENT_PORT: String(agentPort),
        HUB_PUBLIC_URL: agentUrl(agentPort, 'native'),
        HUB_TLS_TICKET_KEYS_FILE: ticketKeysFile,
        ...(tlsMode === 'proxy' ? { TLS_MODE: 'proxy' } : {}),
        ...(n === 1 ? metricsEnv('device-hub') : bus.env('device-hub')),
      },
      logFile: path.join(logDir, n === 1 ? 'device-hub.log' : `device-hub-${n}.log`),
      ready: async () => (await grpcServing(addr(health))) && httpsHealthy(`${url}/readyz`, certs.caPem),
    });
  };
  const extraHubs: ServiceProcess[] = [];
  const extraGateways: ServiceProcess[] = [];
  const schedulerProcess = (port: number, health: number, n: number) =>
    new ServiceProcess({
      name: 'scheduler',
      args: entry('services/scheduler'),
      env: {
        ...common,
        ...grpcEnv('scheduler'),
        GRPC_PORT: String(port),
        GRPC_HEALTH_PORT: String(health),
        ...(n === 1 ? metricsEnv('scheduler') : bus.env('scheduler')),
      },
      logFile: path.join(logDir, n === 1 ? 'scheduler.log' : `scheduler-${n}.log`),
      ready: () => grpcServing(addr(health)),
    });
  const extraSchedulers: ServiceProcess[] = [];
  const services: Record<ServiceName, ServiceProcess> = {
    account: new ServiceProcess({
      name: 'account',
      args: entry('services/account'),
      env: {
        ...common,
        ...grpcEnv('account'),
        GRPC_PORT: String(ports.account),
        GRPC_HEALTH_PORT: String(healthPorts.account),
        ...metricsEnv('account'),
      },
      logFile: path.join(logDir, 'account.log'),
      ready: () => grpcServing(addr(healthPorts.account)),
    }),
    message: new ServiceProcess({
      name: 'message',
      args: entry('services/message'),
      env: {
        ...common,
        ...grpcEnv('message'),
        GRPC_PORT: String(ports.message),
        GRPC_HEALTH_PORT: String(healthPorts.message),
        ...metricsEnv('message'),
      },
      logFile: path.join(logDir, 'message.log'),
      ready: () => grpcServing(addr(healthPorts.message)),
    }),
    otp: new ServiceProcess({
      name: 'otp',
      args: entry('services/otp'),
      env: {
        ...common,
        ...grpcEnv('otp'),
        GRPC_PORT: String(ports.otp),
        GRPC_HEALTH_PORT: String(healthPorts.otp),
        ...metricsEnv('otp'),
      },
      logFile: path.join(logDir, 'otp.log'),
      ready: () => grpcServing(addr(healthPorts.otp)),
    }),
    'device-hub': hubProcess(ports.agents, ports.deviceHub, healthPorts.deviceHub, 1),
    gateway: gatewayProcess(ports.gateway, 1),
    scheduler: schedulerProcess(ports.scheduler, healthPorts.scheduler, 1),
    webhook: new ServiceProcess({
      name: 'webhook',
      args: entry('services/webhook'),
      env: {
        ...common,
        ...grpcEnv('webhook'),
        GRPC_PORT: String(ports.webhook),
        GRPC_HEALTH_PORT: String(healthPorts.webhook),
        ...metricsEnv('webhook'),
      },
      logFile: path.join(logDir, 'webhook.log'),
      ready: () => grpcServing(addr(healthPorts.webhook)),
    }),
    dashboard: new ServiceProcess({
      name: 'dashboard',
      args: entry('services/dashboard'),
      env: {
        ...common,
        ...grpcEnv('dashboard'),
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: String(ports.dashboard),
        DASHBOARD_SMPP_ADDRESS: `127.0.0.1:${ports.smpp}`,
        ...metricsEnv('dashboard'),
      },
      logFile: path.join(logDir, 'dashboard.log'),
      ready: () => httpsHealthy(`${dashboardUrl}/signin`, certs.caPem),
    }),
    smpp: new ServiceProcess({
      name: 'smpp',
      args: entry('services/smpp'),
      env: {
        ...common,
        ...grpcEnv('smpp'),
        SMPP_HOST: '127.0.0.1',
        SMPP_TLS_PORT: String(ports.smpp),
        SMPP_HEALTH_PORT: String(ports.smppHealth),
        ...metricsEnv('smpp'),
      },
      logFile: path.join(logDir, 'smpp.log'),
      ready: () => httpsHealthy(`http://127.0.0.1:${ports.smppHealth}/readyz`, certs.caPem),
    }),
  };

  const order: ServiceName[] = ['account', 'scheduler', 'message', 'webhook', 'otp', 'device-hub', 'gateway', 'dashboard', 'smpp'];
  const stopAll = async () => {
    await Promise.all([...extraGateways, ...extraSchedulers, ...extraHubs].map((g) => g.stop()));
    for (const name of [...order].reverse()) await services[name].stop();
  };
  try {
    // Account, message and scheduler have no dependency on each other: start them together.
    await Promise.all([services.account.start(), services.message.start(), services.scheduler.start()]);
    await Promise.all([services.otp.start(), services['device-hub'].start(), services.webhook.start()]);
    await Promise.all([services.gateway.start(), services.dashboard.start(), services.smpp.start()]);
  } catch (err) {
    await stopAll();
    // An isolated run that failed to start leaves nothing behind either (make dev starts again after a port clash).
    if (options.isolated) await removeRunData(infra, database, natsPrefix, redisPrefix).catch(() => undefined);
    await removeRedisUsers();
    await infra.stop();
    await bus.stop();
    throw err;
  }
  log(`stack ready: gateway ${gatewayUrl}, hub ${hubUrl}, logs in ${logDir}`);

  return {
    gatewayUrl,
    hubUrl,
    certs,
    accountAddress: addr(ports.account),
    messageAddress: addr(ports.message),
    deviceHubAddress: addr(ports.deviceHub),
    otpAddress: addr(ports.otp),
    schedulerAddress: addr(ports.scheduler),
    webhookAddress: addr(ports.webhook),
    smpp: { host: '127.0.0.1', port: ports.smpp },
    healthAddresses: {
      account: addr(healthPorts.account),
      message: addr(healthPorts.message),
      'device-hub': addr(healthPorts.deviceHub),
      otp: addr(healthPorts.otp),
      scheduler: addr(healthPorts.scheduler),
      webhook: addr(healthPorts.webhook),
    },
    grpcCredentials: (identity) => ({ mode: 'mtls', ...serviceCerts[identity] }),
    dashboardUrl,
    metricsUrls: Object.fromEntries(METRICS_ORDER.map((name) => [name, `http://127.0.0.1:${metricsPorts[name]}/metrics`])) as Record<
      ServiceName,
      string
    >,
    databaseUrl,
    natsUrl: infra.natsUrl,
    natsPrefix,
    redisUrl: infra.redisUrl,
    redisPrefix,
    busUsers: bus.users,
    natsAdmin: bus.natsAdmin,
    services,
    logDir,
    async addGateway() {
      const port = await freePort();
      const gateway = gatewayProcess(port, extraGateways.length + 2);
      extraGateways.push(gateway);
      await gateway.start();
      return `https://127.0.0.1:${port}`;
    },
    async addDeviceHub(options = {}) {
      const agentPort = await freePort();
      const tlsMode = options.tlsMode ?? 'native';
      const hub = hubProcess(agentPort, await freePort(), await freePort(), extraHubs.length + 2, tlsMode);
      extraHubs.push(hub);
      await hub.start();
      return { hubUrl: agentUrl(agentPort, tlsMode), process: hub };
    },
    async addScheduler() {
      const scheduler = schedulerProcess(await freePort(), await freePort(), extraSchedulers.length + 2);
      extraSchedulers.push(scheduler);
      await scheduler.start();
      return scheduler;
    },
    async restart(name) {
      await services[name].stop();
      await services[name].start();
    },
    async stop() {
      await stopAll();
      if (options.isolated) await removeRunData(infra, database, natsPrefix, redisPrefix);
      await removeRedisUsers();
      await infra.stop();
      await bus.stop();
    },
  };
}

/** Drops what an isolated run made: its database, its NATS streams and its Redis keys. */
export async function removeRunData(infra: InfraHandle, database: string, natsPrefix: string, redisPrefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: infra.postgresUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).finally(() => client.end());
  const nc = await connect({ servers: infra.natsUrl, ...natsAdminOf(infra.natsUrl) });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${natsPrefix.toUpperCase()}_`)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
  const redis = new Redis(infra.redisUrl, { lazyConnect: true });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
