// The infrastructure of a stack: the machine's Postgres, Redis and NATS when they answer, private instances
// otherwise (ensureInfra), and private servers of a caller's own (startPrivateServer). One module each.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../ports';
import { ensureBinaries } from './binaries';
import { describe, InfraError, redact, UnusableError, type InfraName, type InfraService } from './infra-service';
import { natsAdmins, natsAuthFile, nats } from './nats';
import { postgres } from './postgres';
import type { PrivateInstance } from './private-instance';
import { redis } from './redis';

export { InfraError, type InfraName };
export { natsAdminOf } from './nats';

export interface InfraUrls {
  postgresUrl: string;
  redisUrl: string;
  natsUrl: string;
}

export interface InfraHandle extends InfraUrls {
  /** names of private instances this call started */
  started: string[];
  stop(): Promise<void>;
}

export interface InfraOptions {
  postgresUrl?: string;
  redisUrl?: string;
  natsUrl?: string;
  /** Private instances keep their data under `<dataDir>/<name>/` and their output in `<dataDir>/<name>.log`. */
  dataDir: string;
  log?: (line: string) => void;
}

/**
 * Uses the Postgres, Redis and NATS behind the given URLs when they answer, and
 * starts a private instance of each one that does not.
 */
export async function ensureInfra(options: InfraOptions): Promise<InfraHandle> {
  const log = options.log ?? (() => undefined);
  const dataDir = path.resolve(options.dataDir);
  await fsp.mkdir(dataDir, { recursive: true });
  const requested: Record<InfraName, string | undefined> = {
    postgres: options.postgresUrl,
    redis: options.redisUrl,
    nats: options.natsUrl,
  };

  const instances: PrivateInstance[] = [];
  // If the launcher exits without calling stop(), its servers should not outlive it.
  const signalAll = () => instances.forEach((instance) => instance.signal());
  process.on('exit', signalAll);
  const stopAll = async () => {
    process.removeListener('exit', signalAll);
    await Promise.all(instances.map((instance) => instance.stop()));
  };

  const outcomes = await Promise.allSettled(
    SERVICES.map(async (service) => {
      const url = requested[service.name] ?? (process.env[service.envVar] || service.defaultUrl);
      const problem = await probeProblem(service, url);
      if (!problem) {
        log(`${service.name}: using ${redact(url)} (reachable)`);
        return url;
      }
      const binaries = await ensureBinaries(service, dataDir, log);
      const port = await freePort();
      log(`${service.name}: ${problem}, starting a private ${path.basename(binaries.main)} on 127.0.0.1:${port}`);
      const instance = await service.start({
        dir: path.join(dataDir, service.name),
        logFile: path.join(dataDir, `${service.name}.log`),
        port,
        binaries,
        dataDir,
      });
      instances.push(instance);
      log(`${service.name}: private instance ready at ${instance.url} (output in ${instance.logFile})`);
      return instance.url;
    }),
  );

  const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failures.length > 0) {
    await stopAll();
    for (const extra of failures.slice(1)) log(describe(extra.reason));
    throw failures[0]!.reason;
  }
  const urls = outcomes.map((o) => (o as PromiseFulfilledResult<string>).value);
  const startedNames = new Set(instances.map((instance) => instance.name));

  let stopping: Promise<void> | undefined;
  return {
    postgresUrl: urls[0]!,
    redisUrl: urls[1]!,
    natsUrl: urls[2]!,
    started: SERVICES.map((s) => s.name).filter((name) => startedNames.has(name)),
    stop: () => (stopping ??= stopAll()),
  };
}

/** Why `url` cannot be used, or undefined when it can. */
async function probeProblem(service: InfraService, url: string): Promise<string | undefined> {
  try {
    await service.probe(url);
    return undefined;
  } catch (err) {
    const verb = err instanceof UnusableError ? 'not usable' : 'not reachable';
    return `${verb} at ${redact(url)} (${describe(err)})`;
  }
}

const SERVICES = [postgres, redis, nats] as const;

/** A private Postgres, Redis or NATS server that a test may stop and start again on the same port. */
export interface PrivateServer {
  url: string;
  /** The server process's pid while it runs (a Postgres's postmaster: its other processes are its children). */
  readonly pid: number | undefined;
  /** NATS started with `natsMonitor`: its monitoring endpoint (`http://127.0.0.1:<port>`, `/varz`). */
  monitorUrl?: string;
  /** Stops the server (an outage); start() brings it back at the same URL, empty but for its users. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * NATS only: replaces the users of the server with `authorization` (nats-server configuration:
   * `authorization { ... }`, `no_auth_user`), restarting it when it runs; a restart keeps them.
   * `admin`, a user of them with every right, is who this module connects as from then on.
   */
  authorize(authorization: string, admin: { user: string; password: string }): Promise<void>;
}

/** The private servers of this process, by URL: the stack gives its users to one it is pointed at. */
const privateServers = new Map<string, PrivateServer>();

/** The private server started by this process at `url`, if any. */
export function privateServerAt(url: string): PrivateServer | undefined {
  return privateServers.get(url);
}

/**
 * Starts a private Postgres, Redis or NATS of the caller's own (outage tests, benchmarks that
 * count what the servers do): never the machine's shared servers, which other runs use.
 */
export async function startPrivateServer(
  name: InfraName,
  options: {
    dataDir: string;
    log?: (line: string) => void;
    /** NATS: its users from the start, and their administrator (see `authorize`). */
    natsAuthorization?: string;
    natsAdmin?: { user: string; password: string };
    /** NATS: serve the monitoring endpoint on a free port (`monitorUrl`). */
    natsMonitor?: boolean;
    /** Postgres: settings that replace the private instance's defaults (which trade durability for speed). */
    postgresSettings?: Record<string, string>;
  },
): Promise<PrivateServer> {
  const service = { postgres, redis, nats }[name];
  const dataDir = path.resolve(options.dataDir);
  await fsp.mkdir(dataDir, { recursive: true });
  const binaries = await ensureBinaries(service, dataDir, options.log ?? (() => undefined));
  const port = await freePort();
  const monitorPort = name === 'nats' && options.natsMonitor ? await freePort() : undefined;
  let instance: PrivateInstance | undefined;
  const signal = () => instance?.signal();
  const server: PrivateServer = {
    url: {
      postgres: `postgres://postgres@127.0.0.1:${port}/postgres`,
      redis: `redis://127.0.0.1:${port}`,
      nats: `nats://127.0.0.1:${port}`,
    }[name],
    ...(monitorPort ? { monitorUrl: `http://127.0.0.1:${monitorPort}` } : {}),
    get pid() {
      return instance?.running ? instance.child.pid : undefined;
    },
    async start() {
      if (instance?.running) return;
      instance = await service.start({
        dir: path.join(dataDir, name),
        logFile: path.join(dataDir, `${name}.log`),
        port,
        binaries,
        dataDir,
        ...(options.postgresSettings ? { settings: options.postgresSettings } : {}),
        ...(monitorPort ? { monitorPort } : {}),
      });
      process.on('exit', signal);
    },
    async stop() {
      process.removeListener('exit', signal);
      await instance?.stop();
    },
    async authorize(authorization, admin) {
      if (name !== 'nats') throw new Error('only a private NATS takes a users file; give Redis its users with ACL SETUSER');
      await fsp.writeFile(natsAuthFile(path.join(dataDir, name)), authorization, { mode: 0o600 });
      natsAdmins.set(server.url, admin);
      // nats-server cannot reload a change of no_auth_user: it starts again with them (same port, same store).
      if (!instance?.running) return;
      await server.stop();
      await server.start();
    },
  };
  if (name === 'nats' && options.natsAdmin) natsAdmins.set(server.url, options.natsAdmin);
  if (name === 'nats' && options.natsAuthorization !== undefined) {
    await fsp.mkdir(path.join(dataDir, name), { recursive: true });
    await fsp.writeFile(natsAuthFile(path.join(dataDir, name)), options.natsAuthorization, { mode: 0o600 });
  }
  await server.start();
  privateServers.set(server.url, server);
  return server;
}
