// Starts the whole system for the tests, `make dev` and the benchmarks: the infrastructure, the shared
// environment, then the services of the table (`services/index.ts`) in waves.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_IDENTITIES, type GrpcTls, type ServiceIdentity } from '@smsgw/platform';
import { startBusUsers, type BusUsers } from './bus-users';
import { ensureCerts, ensureServiceCerts, ensureTicketKeys, type Certs, type ServiceCertFiles } from './certs';
import { processOf, startWaves, stopOrder, type ComponentContext, type Instance, type SharedEnv } from './components';
import { ensureInfra, startPrivateServer, type InfraHandle, type PrivateServer } from './infra/index';
import { startMailCatcher, type CaughtMail, type MailCatcher } from './mail-catcher';
import { planPorts, type PortChoices } from './port-plan';
import { freePort } from './ports';
import { createDatabase, otpSecrets, removeRunData, withDatabase } from './run-data';
import { grpcServing, httpsHealthy, ServiceProcess, simulatedPhone, simulatedPhoneArgs, type ServiceName } from './service-process';
import { COMPONENTS } from './services/index';
import { attachStack, writeStackDescriptor, type StackDescriptor } from './shared-stack';
import { agentUrl } from './services/device-hub';

export {
  attachStack,
  writeStackDescriptor,
  ensureCerts,
  ensureServiceCerts,
  ensureTicketKeys,
  ensureInfra,
  freePort,
  ServiceProcess,
  grpcServing,
  httpsHealthy,
  removeRunData,
  simulatedPhone,
  simulatedPhoneArgs,
  startMailCatcher,
  startPrivateServer,
};
export type { StackDescriptor, BusUsers, CaughtMail, Certs, InfraHandle, MailCatcher, PrivateServer, ServiceCertFiles, ServiceName };

export const REPO_ROOT = path.resolve(__dirname, '../../..');

export interface StackOptions extends PortChoices {
  /** Where certificates, logs and private infrastructure live. */
  dataDir: string;
  /**
   * A run of its own: a fresh database, NATS subject prefix and Redis key
   * prefix, all removed by stop(). Tests use this; `make dev` does not.
   */
  isolated: boolean;
  /** Postgres, Redis or NATS to use instead of the default ones (e.g. private servers of an outage test). */
  infra?: { postgresUrl?: string; redisUrl?: string; natsUrl?: string };
  /** Extra environment for every service (pacing, log level, ...). */
  env?: Record<string, string>;
  log?: (line: string) => void;
  /**
   * Aborts the start-up (a benchmark's Ctrl-C): once the services being started are up, startStack
   * stops what it started, removes an isolated run's data, and rejects. No effect once it is ready.
   */
  signal?: AbortSignal;
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
  const database = options.isolated ? `smsgw_test_${runId}` : 'smsgw';
  await createDatabase(infra.postgresUrl, database);
  const databaseUrl = withDatabase(infra.postgresUrl, database);
  const removeRedisUsers = await bus.addRedisUsers(infra.redisUrl);
  const plan = await planPorts(options, COMPONENTS);
  const { ports, health } = plan;
  const logDir = path.join(options.dataDir, options.isolated ? `logs-${runId}` : 'logs');
  const addr = (p: number) => `127.0.0.1:${p}`;
  const shared: SharedEnv = {
    common: {
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
      ...Object.fromEntries(
        Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('OTEL_') && e[1] !== undefined),
      ),
      ...options.env,
    },
    grpc: (name) => ({
      GRPC_TLS_CA_FILE: serviceCerts[name].caFile,
      GRPC_TLS_CERT_FILE: serviceCerts[name].certFile,
      GRPC_TLS_KEY_FILE: serviceCerts[name].keyFile,
    }),
    bus: (name) => bus.env(name),
  };
  const context: ComponentContext = { certs, ticketKeysFile, plan };
  const where = { repoRoot: REPO_ROOT, logDir };
  const byName = new Map(COMPONENTS.map((c) => [c.name, c]));
  const componentOf = (name: ServiceName) => byName.get(name)!;
  const services = Object.fromEntries(
    COMPONENTS.map((c) => [c.name, processOf(c, { n: 1, ports: c.ports(plan), tlsMode: 'native' }, shared, context, where)]),
  ) as Record<ServiceName, ServiceProcess>;
  const replicas: ServiceProcess[] = [];
  const replicaCount = new Map<ServiceName, number>();
  /** One more instance of a service, on free ports (stopped with the stack). */
  const addReplica = async (name: ServiceName, tlsMode: Instance['tlsMode'] = 'native') => {
    const c = componentOf(name);
    const instancePorts: Record<string, number> = {};
    for (const key of Object.keys(c.ports(plan))) instancePorts[key] = await freePort();
    const n = (replicaCount.get(name) ?? 1) + 1;
    replicaCount.set(name, n);
    const instance: Instance = { n, ports: instancePorts, tlsMode };
    const replica = processOf(c, instance, shared, context, where);
    replicas.push(replica);
    await replica.start();
    return { instance, process: replica };
  };
  const hubUrl = `https://127.0.0.1:${ports.agents}`;
  const gatewayUrl = `https://127.0.0.1:${ports.gateway}`;
  const dashboardUrl = `https://127.0.0.1:${ports.dashboard}`;

  const stopAll = async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    for (const name of stopOrder(COMPONENTS)) await services[name].stop();
  };
  try {
    // Each wave starts together once the one before is ready (the table's `after`).
    for (const wave of startWaves(COMPONENTS)) {
      options.signal?.throwIfAborted();
      await Promise.all(wave.map((name) => services[name].start()));
    }
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
      account: addr(health.account),
      message: addr(health.message),
      'device-hub': addr(health.deviceHub),
      otp: addr(health.otp),
      scheduler: addr(health.scheduler),
      webhook: addr(health.webhook),
    },
    grpcCredentials: (identity) => ({ mode: 'mtls', ...serviceCerts[identity] }),
    dashboardUrl,
    metricsUrls: Object.fromEntries(
      [...COMPONENTS]
        .sort((a, b) => a.devMetricsPort - b.devMetricsPort)
        .map((c) => [c.name, `http://127.0.0.1:${plan.metrics[c.name]}/metrics`]),
    ) as Record<ServiceName, string>,
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
      const { instance } = await addReplica('gateway');
      return `https://127.0.0.1:${instance.ports.http}`;
    },
    async addDeviceHub(options = {}) {
      const tlsMode = options.tlsMode ?? 'native';
      const { instance, process } = await addReplica('device-hub', tlsMode);
      return { hubUrl: agentUrl(instance.ports.agents!, tlsMode), process };
    },
    async addScheduler() {
      return (await addReplica('scheduler')).process;
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
