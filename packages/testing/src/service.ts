import path from 'node:path';
import {
  connectNats,
  createLogger,
  createPool,
  createRedis,
  quoteIdent,
  SERVICE_IDENTITIES,
  type Logger,
  type ServiceIdentity,
  type Nats,
  type Pool,
  type Redis,
} from '@smsgw/platform';
import { freePort, grpcServing, REPO_ROOT, ServiceProcess, type ServiceName } from '@smsgw/stack';
import { grpcTlsEnv } from './grpc-tls';
import { DATABASE_URL, NATS_URL, randomHex, REDIS_URL } from './servers';

export interface SandboxOptions {
  /** Names the logger and the connections (`<name>-test`). */
  name: string;
  /** A schema to use instead of a fresh one (a second set of servers on the same rows). */
  schema?: string;
  /** A NATS prefix to use instead of a fresh one. */
  natsPrefix?: string;
  /** Keep a Redis connection under the sandbox's key prefix (`sandbox.redis`) for the test to look. */
  redis?: boolean;
  /** Keep a NATS connection under the sandbox's prefix (`sandbox.nats`) for the test to look. */
  nats?: boolean;
  /** Connections of the test's pool on the schema. */
  poolMax?: number;
  /** False for a service without Postgres (the dashboard): no schema is dropped at clean-up. */
  database?: boolean;
}

/**
 * A Postgres schema, a NATS prefix and a Redis key prefix of one's own on the
 * shared local servers, so that a test file meets no other run's rows,
 * streams or keys. `cleanUp()` removes all three.
 */
export interface Sandbox {
  readonly schema: string;
  readonly natsPrefix: string;
  readonly redisPrefix: string;
  readonly log: Logger;
  /** The settings a service reads to use the sandbox (database, NATS and Redis URLs and prefixes). */
  readonly env: Record<string, string>;
  /** A pool on the schema, for seeding and inspecting rows. */
  readonly pool: Pool;
  /** With `redis: true`: a connection with the sandbox's key prefix. */
  readonly redis: Redis | undefined;
  /** With `nats: true`: a connection with the sandbox's prefix. */
  readonly nats: Nats | undefined;
  /** Deletes the prefix's streams and Redis keys and drops the schema; closes the sandbox's connections. */
  cleanUp(): Promise<void>;
}

export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const schema = options.schema ?? `t_${randomHex()}`;
  const natsPrefix = options.natsPrefix ?? `t${randomHex(5)}`;
  const redisPrefix = `smsgw:t${randomHex(5)}:`;
  const name = `${options.name}-test`;
  const log = createLogger(name, process.env.TEST_LOG_LEVEL ?? 'silent');
  const pool = createPool({ url: DATABASE_URL, schema, max: options.poolMax ?? 2 });
  let redis: Redis | undefined;
  if (options.redis) {
    redis = createRedis({ url: REDIS_URL, keyPrefix: redisPrefix, name });
    await redis.connect();
  }
  const nats = options.nats ? await connectNats({ url: NATS_URL, prefix: natsPrefix, name, log }) : undefined;
  return {
    schema,
    natsPrefix,
    redisPrefix,
    log,
    env: {
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      NATS_URL,
      NATS_PREFIX: natsPrefix,
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
    },
    pool,
    redis,
    nats,
    async cleanUp() {
      const bus = nats ?? (await connectNats({ url: NATS_URL, prefix: natsPrefix, name: `${name}-cleanup`, log }));
      for (const stream of [
        bus.names.reportsStream,
        bus.names.reportBatchesStream,
        bus.names.eventsStream,
        bus.names.eventBatchesStream,
        bus.names.timersStream,
      ])
        await bus.jsm.streams.delete(stream).catch(() => undefined);
      await bus.nc.drain();
      const keys = redis ?? createRedis({ url: REDIS_URL, keyPrefix: redisPrefix, name: `${name}-cleanup` });
      if (!redis) await keys.connect();
      const found = await keys.keys(`${redisPrefix}*`);
      // KEYS takes and answers whole names (no key prefix); DEL adds the prefix.
      if (found.length > 0) await keys.del(...found.map((k) => k.slice(redisPrefix.length)));
      keys.disconnect();
      // pg connects on the first query: a sandbox without a database never opened one.
      if (options.database !== false) await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await pool.end();
    },
  };
}

/** What a service's `start(config, log)` returns: its gRPC (or HTTP) port and its orderly stop. */
export interface StartedApp {
  port: number;
  stop(): Promise<void>;
}

export interface ServiceUnderTestOptions<C, A extends StartedApp> extends Omit<SandboxOptions, 'schema' | 'natsPrefix'> {
  /** The service's configuration reader (`loadXxxConfig`). */
  loadConfig: (env: Record<string, string>) => C;
  /** The service's composition root (`start` of its `main.ts`). */
  start: (config: C, log: Logger) => Promise<A>;
  /** Settings on top of the sandbox's and a gRPC server on 127.0.0.1, port 0. */
  env?: Record<string, string>;
  /** Servers already made (another replica on the same rows); they are left for their owner to clean up. */
  on?: Sandbox;
}

export interface ServiceUnderTest<C, A extends StartedApp> {
  app: A;
  config: C;
  port: number;
  sandbox: Sandbox;
  schema: string;
  natsPrefix: string;
  redisPrefix: string;
  pool: Pool;
  /** Stops the service, then cleans up the sandbox when it made it; a second call does nothing. */
  stop(): Promise<void>;
}

/**
 * The real service, in this process, on a sandbox of its own (or `on`'s):
 * its settings are the sandbox's, a gRPC server on port 0, and `env`.
 */
export async function startServiceUnderTest<C, A extends StartedApp>(
  options: ServiceUnderTestOptions<C, A>,
): Promise<ServiceUnderTest<C, A>> {
  const sandbox = options.on ?? (await createSandbox(options));
  let app: A;
  let config: C;
  try {
    config = options.loadConfig({
      ...sandbox.env,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      GRPC_HEALTH_PORT: '0',
      ...identityEnv(options.name),
      ...options.env,
    });
    app = await options.start(config, sandbox.log);
  } catch (err) {
    if (!options.on) await sandbox.cleanUp();
    throw err;
  }
  let stopped = false;
  return {
    app,
    config,
    port: app.port,
    sandbox,
    schema: sandbox.schema,
    natsPrefix: sandbox.natsPrefix,
    redisPrefix: sandbox.redisPrefix,
    pool: sandbox.pool,
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await app.stop();
      } finally {
        if (!options.on) await sandbox.cleanUp();
      }
    },
  };
}

export interface ServiceProcessOptions {
  /** Which one: its built `services/<service>/dist/main.js`. */
  service: ServiceName;
  /** The NATS prefix it shares with the service under test. */
  natsPrefix: string;
  /** The Redis key prefix it shares, when it uses Redis. */
  redisPrefix?: string;
  /** Settings on top of its own schema, the prefixes, a gRPC server on a free port and `LOG_LEVEL=warn`. */
  env?: Record<string, string>;
  /** Its gRPC port, when the service under test must know it before it starts; a free one by default. */
  port?: number;
  /** Its log goes to `.stack/<logFolder>/<service>-<schema>.log`. */
  logFolder: string;
}

export interface ServiceProcessUnderTest {
  /** `127.0.0.1:<port>` of its gRPC server. */
  address: string;
  port: number;
  schema: string;
  /** Stops the process, then drops its schema. */
  stop(): Promise<void>;
}

/**
 * Another service the one under test talks to, run as production runs it:
 * its built dist as a process of its own (a service never imports another
 * service's code), with a schema of its own, ready once its gRPC health
 * check answers SERVING. Needs `make build` (or the service in the test
 * workspace's devDependencies, which turbo builds first).
 */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcessUnderTest> {
  const schema = `t_${options.service.replace('-', '_')}_${randomHex(5)}`;
  const port = options.port ?? (await freePort());
  const healthPort = await freePort();
  const address = `127.0.0.1:${port}`;
  const child = new ServiceProcess({
    name: options.service,
    args: [path.join(REPO_ROOT, `services/${options.service}/dist/main.js`)],
    env: {
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      NATS_URL,
      NATS_PREFIX: options.natsPrefix,
      ...(options.redisPrefix === undefined ? {} : { REDIS_URL, REDIS_PREFIX: options.redisPrefix }),
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(port),
      GRPC_HEALTH_PORT: String(healthPort),
      ...grpcTlsEnv(options.service),
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    logFile: path.join(REPO_ROOT, `.stack/${options.logFolder}/${options.service}-${schema}.log`),
    ready: () => grpcServing(`127.0.0.1:${healthPort}`),
  });
  const dropSchema = async () => {
    const pool = createPool({ url: DATABASE_URL, schema: 'public', max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  };
  try {
    await child.start();
  } catch (err) {
    await child.stop();
    await dropSchema();
    throw err;
  }
  return {
    address,
    port,
    schema,
    async stop() {
      await child.stop();
      await dropSchema();
    },
  };
}

/** The gRPC identity of a service under test, from the test CA (nothing for a name that is no service). */
function identityEnv(name: string): Record<string, string> {
  return (SERVICE_IDENTITIES as readonly string[]).includes(name) ? grpcTlsEnv(name as ServiceIdentity) : {};
}
