// Over 300 lines: Postgres, Redis and NATS are three records of one shape (probe, binaries, private
// start-up), read side by side so that they stay alike, over the start, stop and log machinery
// they share (PrivateInstance).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { freePort } from './ports';

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

/** Postgres, Redis or NATS could not be provided; the message says what to do about it. */
export class InfraError extends Error {
  override name = 'InfraError';

  constructor(
    readonly service: ServiceName,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export type ServiceName = 'postgres' | 'redis' | 'nats';

const PROBE_TIMEOUT_MS = 3_000;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_TAIL_LINES = 20;

/** The server answers but lacks something the platform needs (JetStream). */
class UnusableError extends Error {
  override name = 'UnusableError';
}

interface Binaries {
  /** The server binary. */
  main: string;
  /** Other binaries of the same installation, by name. */
  tools: Record<string, string>;
}

interface StartContext {
  dir: string;
  logFile: string;
  port: number;
  binaries: Binaries;
  dataDir: string;
  /** Postgres: settings passed as `-c name=value` after the defaults (they win). */
  settings?: Record<string, string>;
  /** NATS: the port of its monitoring endpoint (`/varz`); none when absent. */
  monitorPort?: number;
}

interface Service {
  name: ServiceName;
  /** What to tell the user to install, and what apt-get installs when it can. */
  debianPackage: string;
  envVar: string;
  defaultUrl: string;
  findBinaries(): Binaries | undefined;
  probe(url: string): Promise<void>;
  start(context: StartContext): Promise<PrivateInstance>;
}

/** A server process this module started and is responsible for stopping. */
class PrivateInstance {
  private exited = false;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>;

  constructor(
    readonly name: ServiceName,
    readonly url: string,
    readonly child: ChildProcess,
    readonly logFile: string,
    /** The signal that makes this server shut down cleanly and quickly. */
    readonly stopSignal: NodeJS.Signals,
  ) {
    this.exit = new Promise((resolve) => {
      // A binary that cannot be executed reports 'error' and may never report 'exit'.
      child.once('error', (error) => {
        this.exited = true;
        resolve({ code: null, signal: null, error });
      });
      child.once('exit', (code, signal) => {
        this.exited = true;
        resolve({ code, signal });
      });
    });
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Synchronous, so it can run from a process 'exit' handler. */
  signal(): void {
    if (this.running) this.child.kill(this.stopSignal);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill(this.stopSignal);
    if (await settlesWithin(this.exit, STOP_TIMEOUT_MS)) return;
    this.child.kill('SIGKILL');
    await this.exit;
  }
}

/**
 * Uses the Postgres, Redis and NATS behind the given URLs when they answer, and
 * starts a private instance of each one that does not.
 */
export async function ensureInfra(options: InfraOptions): Promise<InfraHandle> {
  const log = options.log ?? (() => undefined);
  const dataDir = path.resolve(options.dataDir);
  await fsp.mkdir(dataDir, { recursive: true });
  const requested: Record<ServiceName, string | undefined> = {
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
async function probeProblem(service: Service, url: string): Promise<string | undefined> {
  try {
    await service.probe(url);
    return undefined;
  } catch (err) {
    const verb = err instanceof UnusableError ? 'not usable' : 'not reachable';
    return `${verb} at ${redact(url)} (${describe(err)})`;
  }
}

const postgres: Service = {
  name: 'postgres',
  debianPackage: 'postgresql',
  envVar: 'SMSGW_POSTGRES_URL',
  defaultUrl: 'postgres://postgres@127.0.0.1:5432/postgres',

  findBinaries() {
    const found = findBinary('postgres');
    if (!found) return undefined;
    // initdb must come from the same installation as the server it prepares a
    // directory for; a symlink on PATH points at that installation.
    const main = fs.realpathSync(found);
    const initdb = path.join(path.dirname(main), 'initdb');
    return isExecutable(initdb) ? { main, tools: { initdb } } : undefined;
  },

  async probe(url) {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: PROBE_TIMEOUT_MS,
      query_timeout: PROBE_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
    } finally {
      await settlesWithin(client.end(), PROBE_TIMEOUT_MS);
    }
  },

  async start({ dir, logFile, port, binaries, dataDir, settings = {} }) {
    await fsp.mkdir(dir, { recursive: true });
    // initdb and postgres refuse to run as root.
    const user = isRoot() ? postgresUser() : undefined;
    if (user) {
      await makeTraversable(dataDir);
      await fsp.chown(dir, user.uid, user.gid);
    }
    const hint = user
      ? ` initdb and postgres run as the postgres user, which needs search permission on every directory above ${dir}.`
      : '';
    if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
      await runToCompletion('postgres', binaries.tools.initdb!, ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], {
        logFile,
        cwd: dir,
        user,
        hint,
      });
    }
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const instance = spawnLogged(
      'postgres',
      url,
      binaries.main,
      [
        '-D',
        dir,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        // A development database is disposable: trade durability for speed.
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      ],
      // SIGTERM is a "smart" shutdown that waits for every client to leave;
      // SIGINT disconnects them and still shuts down cleanly.
      { logFile, cwd: dir, user, stopSignal: 'SIGINT' },
    );
    await waitUntilReady(instance, () => postgres.probe(url), hint);
    return instance;
  },
};

/** Ids of the account that owns Debian's PostgreSQL; initdb refuses to run as root. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch (err) {
    throw new InfraError(
      'postgres',
      'PostgreSQL refuses to run as root and there is no "postgres" user to run it as. ' +
        'Install the Debian package "postgresql" (it creates that user), or give the URL of a running PostgreSQL with SMSGW_POSTGRES_URL.',
      { cause: err },
    );
  }
}

/**
 * The postgres user needs to pass through `dir` to reach its data directory;
 * fs.mkdtemp and umask 077 leave it closed to others. Search permission alone
 * does not let anyone list or read what is inside.
 */
async function makeTraversable(dir: string): Promise<void> {
  const { mode } = await fsp.stat(dir);
  if ((mode & 0o001) === 0) await fsp.chmod(dir, (mode & 0o7777) | 0o001);
}

const redis: Service = {
  name: 'redis',
  debianPackage: 'redis-server',
  envVar: 'SMSGW_REDIS_URL',
  defaultUrl: 'redis://127.0.0.1:6379',

  findBinaries() {
    const main = findBinary('redis-server');
    return main ? { main, tools: {} } : undefined;
  },

  async probe(url) {
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: PROBE_TIMEOUT_MS,
      commandTimeout: PROBE_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: false,
    });
    // Without a listener ioredis prints every connection error itself; the
    // event also carries the cause that connect() reduces to "Connection is closed".
    let connectionError: unknown;
    client.on('error', (err: unknown) => (connectionError = err));
    try {
      await client.connect().catch((err: unknown) => {
        throw connectionError ?? err;
      });
      const answer = await client.ping();
      if (answer !== 'PONG') throw new UnusableError(`PING answered ${String(answer)}`);
    } finally {
      // disconnect() on a socket that is already closed arms a 2 s timer that
      // nothing clears, which holds the launcher's event loop open.
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else if (client.status !== 'end') client.disconnect();
    }
  },

  async start({ dir, logFile, port, binaries }) {
    await fsp.mkdir(dir, { recursive: true });
    const url = `redis://127.0.0.1:${port}`;
    // The stack's ACL users are saved there (ACL SAVE), so that a restarted server still knows them.
    const aclFile = path.join(dir, 'users.acl');
    if (!fs.existsSync(aclFile)) await fsp.writeFile(aclFile, '', { mode: 0o600 });
    const instance = spawnLogged(
      'redis',
      url,
      binaries.main,
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir, '--aclfile', aclFile],
      { logFile, cwd: dir, stopSignal: 'SIGTERM' },
    );
    await waitUntilReady(instance, () => redis.probe(url), '');
    return instance;
  },
};

const nats: Service = {
  name: 'nats',
  debianPackage: 'nats-server',
  envVar: 'SMSGW_NATS_URL',
  defaultUrl: 'nats://127.0.0.1:4222',

  findBinaries() {
    const main = findBinary('nats-server');
    return main ? { main, tools: {} } : undefined;
  },

  async probe(url) {
    const nc = await connect({ servers: url.split(','), timeout: PROBE_TIMEOUT_MS, reconnect: false, ...natsAdminOf(url) });
    try {
      // The services keep their events in JetStream streams; a core-only server is no use to them.
      await jetstreamManager(nc, { timeout: PROBE_TIMEOUT_MS }).catch((err: unknown) => {
        throw new UnusableError(`JetStream is not enabled: ${describe(err)}`, { cause: err });
      });
    } finally {
      await nc.close();
    }
  },

  async start({ dir, logFile, port, binaries, monitorPort }) {
    await fsp.mkdir(dir, { recursive: true });
    const url = `nats://127.0.0.1:${port}`;
    // Users come from auth.conf (empty: no authentication), which `authorize` rewrites and a restart reads again.
    const authFile = natsAuthFile(dir);
    if (!fs.existsSync(authFile)) await fsp.writeFile(authFile, '', { mode: 0o600 });
    const configFile = path.join(dir, 'nats.conf');
    await fsp.writeFile(configFile, `jetstream { store_dir: ${JSON.stringify(dir)} }\ninclude "auth.conf"\n`);
    const monitor = monitorPort ? ['-m', String(monitorPort)] : [];
    const instance = spawnLogged('nats', url, binaries.main, ['-c', configFile, '-a', '127.0.0.1', '-p', String(port), ...monitor], {
      logFile,
      cwd: dir,
      stopSignal: 'SIGTERM',
    });
    await waitUntilReady(instance, () => nats.probe(url), '');
    return instance;
  },
};

const SERVICES = [postgres, redis, nats] as const;

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Debian keeps the PostgreSQL server outside PATH, one directory per major version. */
function postgresBinDirs(): string[] {
  let versions: string[];
  try {
    versions = fs.readdirSync('/usr/lib/postgresql');
  } catch {
    return [];
  }
  return versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join('/usr/lib/postgresql', v, 'bin'));
}

function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...postgresBinDirs(), '/usr/sbin'];
  return dirs.map((dir) => path.join(dir, name)).find(isExecutable);
}

let aptUpdated = false;
/** apt-get holds a lock on the package database: installs run one after another. */
let aptQueue: Promise<unknown> = Promise.resolve();

async function ensureBinaries(service: Service, dataDir: string, log: (line: string) => void): Promise<Binaries> {
  const found = service.findBinaries();
  if (found) return found;
  const canInstall = isRoot() && fs.existsSync('/etc/debian_version') && findBinary('apt-get') !== undefined;
  if (!canInstall) throw missingBinary(service);

  const install = aptQueue.then(async () => {
    const logFile = path.join(dataDir, 'apt-get.log');
    const aptGet = findBinary('apt-get')!;
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (!aptUpdated) {
      log(`${service.name}: not installed, running apt-get update (output in ${logFile})`);
      await runToCompletion(service.name, aptGet, ['update'], { logFile, env, hint: '' });
      aptUpdated = true;
    }
    log(`${service.name}: installing the Debian package ${service.debianPackage} with apt-get`);
    await runToCompletion(service.name, aptGet, ['install', '-y', '--no-install-recommends', service.debianPackage], {
      logFile,
      env,
      hint: '',
    });
  });
  aptQueue = install.catch(() => undefined);
  await install;
  const installed = service.findBinaries();
  if (!installed) throw missingBinary(service);
  return installed;
}

function missingBinary(service: Service): InfraError {
  const what = { postgres: 'PostgreSQL', redis: 'Redis', nats: 'NATS with JetStream' }[service.name];
  const binary = { postgres: 'postgres and initdb', redis: 'redis-server', nats: 'nats-server' }[service.name];
  return new InfraError(
    service.name,
    `${binary} not found on PATH, in /usr/lib/postgresql/*/bin or in /usr/sbin, and nothing answers at the ${what} URL. ` +
      `Install the Debian/Ubuntu package "${service.debianPackage}" (apt-get install ${service.debianPackage}), ` +
      `or give the URL of a running ${what} with ${service.envVar}.`,
  );
}

interface RunOptions {
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  user?: { uid: number; gid: number };
  /** Added to a failure message whose output says "Permission denied". */
  hint: string;
}

function openLog(logFile: string, command: string, args: string[]): number {
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n--- ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  return fd;
}

function spawnLogged(
  name: ServiceName,
  url: string,
  command: string,
  args: string[],
  options: Omit<RunOptions, 'hint'> & { stopSignal: NodeJS.Signals },
): PrivateInstance {
  const fd = openLog(options.logFile, command, args);
  try {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', fd, fd],
      ...(options.user ?? {}),
    });
    return new PrivateInstance(name, url, child, options.logFile, options.stopSignal);
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs a one-shot command (initdb, apt-get) and fails with the end of its output. */
async function runToCompletion(name: ServiceName, command: string, args: string[], options: RunOptions): Promise<void> {
  const run = spawnLogged(name, '', command, args, { ...options, stopSignal: 'SIGTERM' });
  const { code, signal, error } = await run.exit;
  if (code === 0) return;
  const how = error ? describe(error) : signal ? `was killed by ${signal}` : `exited with code ${code}`;
  throw new InfraError(name, `${path.basename(command)} ${how}.${await failureOutput(options.logFile, options.hint)}`, { cause: error });
}

/** Polls until the server answers; fails early, with its last output, if it exits. */
async function waitUntilReady(instance: PrivateInstance, probe: () => Promise<void>, hint: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!instance.running) {
      const { code, signal, error } = await instance.exit;
      const how = error ? describe(error) : signal ? `was killed by ${signal}` : `exited with code ${code}`;
      throw new InfraError(
        instance.name,
        `the private ${instance.name} ${how} during start-up.${await failureOutput(instance.logFile, hint)}`,
        { cause: error },
      );
    }
    try {
      await probe();
      return;
    } catch (err) {
      lastError = err;
    }
    await Promise.race([delay(200), instance.exit]);
  }
  await instance.stop();
  throw new InfraError(
    instance.name,
    `the private ${instance.name} did not answer at ${instance.url} within ${READY_TIMEOUT_MS / 1000} s ` +
      `(${describe(lastError)}).${await failureOutput(instance.logFile, hint)}`,
    { cause: lastError },
  );
}

/** The end of a child's output, for an error message. */
async function failureOutput(logFile: string, permissionHint: string): Promise<string> {
  let tail: string;
  try {
    const text = await fsp.readFile(logFile, 'utf8');
    tail = text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(-LOG_TAIL_LINES)
      .map((line) => `  ${line}`)
      .join('\n');
  } catch {
    tail = '  (no output)';
  }
  const hint = /permission denied/i.test(tail) ? permissionHint : '';
  return `${hint} Last lines of ${logFile}:\n${tail}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether `promise` settles within `ms`; its outcome is ignored. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = promise.then(
    () => true,
    () => true,
  );
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Duck-typed: errors from Node's own modules fail `instanceof Error` under jest's VM contexts. */
function describe(err: unknown): string {
  if (typeof err !== 'object' || err === null) return String(err);
  const { message, code, name, errors } = err as { message?: unknown; code?: unknown; name?: unknown; errors?: unknown };
  // Node reports a refused connection to every address of a host as an AggregateError with no message.
  if (!message && Array.isArray(errors) && errors.length > 0) return describe(errors[0]);
  for (const part of [message, code, name]) if (typeof part === 'string' && part) return part;
  return Object.prototype.toString.call(err);
}

/** URLs go to logs; passwords must not. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

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

/** The administrator of each private NATS that has users, by URL: probes and clean-ups connect as it. */
const natsAdmins = new Map<string, { user: string; password: string }>();

/** The connection options of the administrator of the NATS at `url` (none when it has no users). */
export function natsAdminOf(url: string): { user?: string; pass?: string } {
  const admin = natsAdmins.get(url);
  return admin ? { user: admin.user, pass: admin.password } : {};
}

const natsAuthFile = (dir: string) => path.join(dir, 'auth.conf');

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
  name: ServiceName,
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
