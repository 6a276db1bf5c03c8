import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import {
  ensureCerts,
  ensureServiceCerts,
  ensureInfra,
  freePort,
  grpcServing,
  httpsHealthy,
  removeRunData,
  REPO_ROOT,
  type Certs,
  type InfraHandle,
} from '@smsgw/stack';
import { SERVICE_IDENTITIES, type ServiceIdentity } from '@smsgw/platform';
import { eventually } from './support/http';

/**
 * The container image's build without Docker: the build context is copied the way Docker sends it
 * (.dockerignore applied), scripts/image/build-app.sh (the Dockerfile's one RUN of substance)
 * builds it, and every service is started from the output the way the image and the Helm chart
 * start it: `node services/<name>/dist/main.js` from the application root, NODE_ENV=production,
 * as UID/GID 65532 when the test runs as root, with the tree not writable, a HOME that does not
 * exist and only its TMPDIR writable.
 *
 * Not checked here (no Docker engine): the base images themselves (node:20-bookworm-slim's npm
 * upgrade, distroless's Node version, entrypoint and user), the Dockerfile's instructions (COPY
 * order, the cache mount, labels, USER, the --chown of the tree), and the real read-only root
 * filesystem, dropped capabilities and seccomp profile of the chart's securityContext. The Node
 * that runs the services is this machine's, not the image's.
 */

const run = promisify(execFile);
const SERVICES = ['account', 'scheduler', 'message', 'webhook', 'otp', 'device-hub', 'gateway', 'dashboard'] as const;
type Name = (typeof SERVICES)[number];
/** Started together, group after group: each group calls only the ones before it. */
const START_GROUPS: Name[][] = [
  ['account', 'scheduler', 'message'],
  ['webhook', 'otp', 'device-hub'],
  ['gateway', 'dashboard'],
];
/** The image's user (distroless :nonroot, the chart's runAsUser). */
const IMAGE_UID = 65532;
/** Packages that only build, test or lint: none may reach the image. */
const DEV_ONLY = [
  'typescript',
  'jest',
  'ts-jest',
  'eslint',
  'turbo',
  'typescript-eslint',
  'eslint-plugin-import-x',
  'playwright-core',
  'autocannon',
];
const DEV_ONLY_SCOPES = ['@types/', '@jest/', '@eslint/', '@typescript-eslint/', '@turbo/'];
const NOT_IN_IMAGE_WORKSPACES = ['@smsgw/stack', '@smsgw/e2e', '@smsgw/bench', '@smsgw/chart', '@smsgw/android-agent'];

interface IgnoreRule {
  negate: boolean;
  pattern: RegExp;
}

/** .dockerignore as Docker reads it, for the syntax the file uses: `**`, `*`, `?`, `!`. */
function readDockerignore(file: string): IgnoreRule[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negate = line.startsWith('!');
      const glob = path.posix.normalize((negate ? line.slice(1) : line).replace(/^\/+/, '')).replace(/\/+$/, '');
      let source = '';
      for (let i = 0; i < glob.length; i++) {
        const c = glob[i]!;
        if (c === '*' && glob[i + 1] === '*') {
          // `**/` is any number of folders, none included; a trailing `**` is anything.
          source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
          i += glob[i + 2] === '/' ? 2 : 1;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '[^/]';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negate, pattern: new RegExp(`^${source}$`) };
    });
}

/** Docker's rule: the last pattern that matches the path, or a folder it is in, decides. */
function isIgnored(rules: IgnoreRule[], file: string): boolean {
  const parts = file.replace(/\/+$/, '').split('/');
  const paths = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const rule of rules) if (paths.some((p) => rule.pattern.test(p))) ignored = !rule.negate;
  return ignored;
}

/** Every file git knows or would add (tracked, and untracked but not ignored), minus .dockerignore's. */
function copyBuildContext(from: string, to: string, rules: IgnoreRule[]): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: from, maxBuffer: 64 << 20 })
    .toString()
    .split('\0')
    .filter((f) => f !== '');
  const copied: string[] = [];
  for (const file of new Set(listed)) {
    if (isIgnored(rules, file)) continue;
    const source = path.join(from, file);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(source);
    } catch {
      continue; // deleted in the working tree, not yet in the index
    }
    const target = path.join(to, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else {
      fs.copyFileSync(source, target);
      fs.chmodSync(target, stat.mode & 0o777);
    }
    copied.push(file);
  }
  return copied;
}

/**
 * This process's environment without what npm and turbo set for the script that runs jest (their
 * prefixes and workspace would steer the build's own npm and turbo), keeping where npm downloads
 * from and caches.
 */
function buildEnvironment(): NodeJS.ProcessEnv {
  const keep = /^npm_config_(registry|cache|userconfig|globalconfig|cafile|proxy|https_proxy|noproxy|strict_ssl)$/i;
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|turbo_)/i.test(key) || keep.test(key)),
  );
  delete env.INIT_CWD;
  delete env.NODE_ENV;
  return { ...env, BUILD_APP_NPM_FLAGS: '--prefer-offline' };
}

function tail(file: string, lines = 25): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/** Names of every package installed under `root`'s node_modules folders, nested ones included. */
function installedPackages(root: string): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const scoped = entry.startsWith('@') ? fs.readdirSync(path.join(dir, entry)).map((n) => `${entry}/${n}`) : [entry];
      for (const name of scoped) {
        names.add(name);
        walk(path.join(dir, name, 'node_modules'));
      }
    }
  };
  walk(path.join(root, 'node_modules'));
  return [...names].sort();
}

/** Relative paths of the folders under `root` (node_modules not entered) whose name is in `names`. */
function foldersNamed(root: string, names: string[], skip = ['node_modules']): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || skip.includes(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (names.includes(entry.name)) found.push(path.relative(root, full));
      walk(full);
    }
  };
  walk(root);
  return found;
}

function filesEndingWith(root: string, suffix: string, skip = ['node_modules']): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !skip.includes(entry.name)) walk(full);
      else if (entry.isFile() && entry.name.endsWith(suffix)) found.push(path.relative(root, full));
    }
  };
  walk(root);
  return found;
}

/** What `promise` resolves to, or undefined when that takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get(url, { timeout: 2000 }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0))
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy();
      });
  });
}

/** One process started from the output tree the way the image starts it. */
class ImageProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly name: string,
    args: string[],
    options: { cwd: string; env: Record<string, string>; logFile: string; user: { uid?: number; gid?: number } },
  ) {
    const out = fs.openSync(options.logFile, 'a');
    this.child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', out, out], ...options.user });
    fs.closeSync(out);
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

describe('the container image, built by scripts/image/build-app.sh without Docker', () => {
  const runId = randomBytes(4).toString('hex');
  const logDir = path.join(REPO_ROOT, '.stack/e2e', `image-${runId}`);
  const database = `smsgw_image_${runId}`;
  const natsPrefix = `t${runId}`;
  const redisPrefix = `smsgw:t${runId}:`;
  let work: string;
  let context: string;
  let out: string;
  let copied: string[];
  let infra: InfraHandle | undefined;
  let databaseUrl: string;
  let certs: Certs;
  let serviceCerts: Awaited<ReturnType<typeof ensureServiceCerts>>;
  const healthPorts = {} as Record<Name, number>;
  /** Who the services run as: the image's user when this test can switch to it. */
  let user: { uid?: number; gid?: number } = {};
  let baseEnv: Record<string, string>;
  const processes = new Map<Name, ImageProcess>();
  const ports = {} as Record<Name | 'agents', number>;
  const metricsPorts = {} as Record<Name, number>;
  const addr = (name: Name) => `127.0.0.1:${ports[name]}`;
  const healthAddr = (name: Name) => `127.0.0.1:${healthPorts[name]}`;
  const grpcTlsEnv = (identity: ServiceIdentity) => ({
    GRPC_TLS_CA_FILE: serviceCerts[identity].caFile,
    GRPC_TLS_CERT_FILE: serviceCerts[identity].certFile,
    GRPC_TLS_KEY_FILE: serviceCerts[identity].keyFile,
  });
  const urlOf = (name: 'gateway' | 'dashboard' | 'agents') => `https://127.0.0.1:${ports[name]}`;

  beforeAll(async () => {
    fs.mkdirSync(logDir, { recursive: true });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-image-'));
    fs.chmodSync(work, 0o755); // the services' user must reach the tree
    context = path.join(work, 'context');
    out = path.join(work, 'app');

    copied = copyBuildContext(REPO_ROOT, context, readDockerignore(path.join(REPO_ROOT, '.dockerignore')));
    const buildLog = path.join(logDir, 'build.log');
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const log = fs.openSync(buildLog, 'w');
      const build = spawn('bash', [path.join(context, 'scripts/image/build-app.sh'), context, out], {
        cwd: work,
        env: buildEnvironment(),
        stdio: ['ignore', log, log],
      });
      fs.closeSync(log);
      build.once('error', reject);
      build.once('exit', (code) =>
        code === 0
          ? resolve()
          : reject(new Error(`build-app.sh exited with ${code} after ${Date.now() - started} ms:\n${tail(buildLog, 40)}`)),
      );
    });
    console.log(`${tail(buildLog, 1)} (${Math.round((Date.now() - started) / 1000)} s)`);
    // What the image's root filesystem is to its services: nothing in the application is writable.
    execFileSync('chmod', ['-R', 'a-w', out]);

    if (process.getuid?.() === 0) {
      // This machine's node must be executable by another user (not the case under /root/.nvm).
      const probe = spawnSync(process.execPath, ['-e', '0'], { cwd: out, uid: IMAGE_UID, gid: IMAGE_UID });
      if (probe.status === 0) user = { uid: IMAGE_UID, gid: IMAGE_UID };
      else console.warn(`node cannot run as UID ${IMAGE_UID} here: the services run as root`);
    }

    infra = await ensureInfra({ dataDir: path.join(REPO_ROOT, '.stack/e2e/infra') });
    const admin = new pg.Client({ connectionString: infra.postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`).finally(() => admin.end());
    const dbUrl = new URL(infra.postgresUrl);
    dbUrl.pathname = `/${database}`;
    databaseUrl = dbUrl.toString();

    // The chart mounts the certificate from a Secret readable by the pod's fsGroup.
    certs = await ensureCerts(path.join(work, 'certs'));
    if (user.uid !== undefined) fs.chownSync(certs.keyFile, user.uid, user.gid!);
    // One gRPC identity per service and the admin tool, as the chart's hook Job makes them.
    serviceCerts = await ensureServiceCerts(path.join(work, 'certs'), certs, SERVICE_IDENTITIES);
    if (user.uid !== undefined) for (const files of Object.values(serviceCerts)) fs.chownSync(files.keyFile, user.uid, user.gid!);
    const tmp = path.join(work, 'tmp');
    fs.mkdirSync(tmp, { mode: 0o1777 });
    fs.chmodSync(tmp, 0o1777);

    for (const name of [...SERVICES, 'agents'] as const) ports[name] = await freePort();
    for (const name of SERVICES) metricsPorts[name] = await freePort();
    for (const name of SERVICES) healthPorts[name] = await freePort();
    baseEnv = {
      NODE_ENV: 'production',
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      // The image's root filesystem is read-only: HOME cannot be written; /tmp (an emptyDir) can.
      HOME: path.join(work, 'no-home'),
      TMPDIR: tmp,
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      NATS_URL: infra.natsUrl,
      NATS_PREFIX: natsPrefix,
      REDIS_URL: infra.redisUrl,
      REDIS_PREFIX: redisPrefix,
      ACCOUNT_GRPC_ADDR: addr('account'),
      MESSAGE_GRPC_ADDR: addr('message'),
      DEVICE_HUB_GRPC_ADDR: addr('device-hub'),
      OTP_GRPC_ADDR: addr('otp'),
      SCHEDULER_GRPC_ADDR: addr('scheduler'),
      WEBHOOK_GRPC_ADDR: addr('webhook'),
      OTP_HASH_KEY: randomBytes(32).toString('base64'),
      OTP_SEAL_KEY: randomBytes(32).toString('base64'),
      TLS_CERT_FILE: certs.certFile,
      TLS_KEY_FILE: certs.keyFile,
      GRPC_HOST: '127.0.0.1',
      HTTP_HOST: '127.0.0.1',
      AGENT_HOST: '127.0.0.1',
      METRICS_HOST: '127.0.0.1',
    };
  }, 240_000);

  afterAll(async () => {
    for (const p of processes.values()) if (p.running) p.child.kill('SIGKILL');
    await Promise.all([...processes.values()].map((p) => p.exited));
    if (infra) {
      await removeRunData(infra, database, natsPrefix, redisPrefix);
      await infra.stop();
    }
    if (work) {
      if (fs.existsSync(out)) execFileSync('chmod', ['-R', 'u+w', out]);
      fs.rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);

  it('when the build context is copied as Docker sends it, then it holds the sources and the build script and nothing the working tree ignores', () => {
    expect(copied).toEqual(
      expect.arrayContaining([
        'package.json',
        'package-lock.json',
        'turbo.json',
        'scripts/image/build-app.sh',
        'services/gateway/src/main.ts',
        'proto/smsgw/message/v1/message.proto',
        'scripts/ensure-android-tools.sh',
        'android-agent/android/build.sh',
        'android-agent/android/AndroidManifest.xml',
      ]),
    );
    // The Android app's sources are the Dockerfile's apk stage's; the Node agent and the app's build output and key are not.
    const unwanted = copied.filter(
      (f) =>
        /(^|\/)(node_modules|dist|\.turbo|test|coverage)\//.test(f) ||
        /^(\.git|\.stack|\.tools|e2e|bench|charts)\//.test(f) ||
        (/^android-agent\//.test(f) && !/^android-agent\/android\//.test(f)) ||
        /^android-agent\/android\/(build|\.keys)\//.test(f),
    );
    expect(unwanted).toEqual([]);
    // Docker does not read .gitignore: whatever git ignores (installs, builds, local state) must be in .dockerignore too.
    const rules = readDockerignore(path.join(REPO_ROOT, '.dockerignore'));
    const gitIgnored = execFileSync('git', ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], {
      cwd: REPO_ROOT,
      maxBuffer: 64 << 20,
    })
      .toString()
      .split('\0')
      .filter((f) => f !== '');
    expect(gitIgnored.filter((f) => !isIgnored(rules, f))).toEqual([]);
  });

  it('when the application is built, then the output holds every service and the admin CLI with production packages only and no tests', () => {
    for (const name of SERVICES) expect(fs.existsSync(path.join(out, 'services', name, 'dist/main.js'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'tools/admin/dist/cli.js'))).toBe(true);
    expect(fs.readdirSync(out).sort()).toEqual(['node_modules', 'package.json', 'packages', 'proto', 'services', 'tools']);
    expect(fs.readdirSync(path.join(out, 'packages')).sort()).toEqual(['client', 'e2e-envelope', 'mcp', 'platform', 'proto']);

    const packages = installedPackages(out);
    expect(packages).toEqual(
      expect.arrayContaining(['@grpc/grpc-js', '@node-rs/argon2', 'pg', 'ioredis', '@smsgw/platform', '@smsgw/admin']),
    );
    const devOnly = packages.filter(
      (n) => DEV_ONLY.includes(n) || DEV_ONLY_SCOPES.some((s) => n.startsWith(s)) || NOT_IN_IMAGE_WORKSPACES.includes(n),
    );
    expect(devOnly).toEqual([]);

    // No tests, no TypeScript sources: ours anywhere, the dependencies' own test folders at their roots.
    expect(foldersNamed(out, ['test', 'tests', '__tests__', 'src', 'e2e', 'bench', 'charts', 'android-agent'])).toEqual([]);
    expect(filesEndingWith(out, '.ts')).toEqual([]);
    const dependencyTests = fs
      .readdirSync(path.join(out, 'node_modules'))
      .flatMap((n) => (n.startsWith('@') ? fs.readdirSync(path.join(out, 'node_modules', n)).map((s) => `${n}/${s}`) : [n]))
      .filter((n) => ['test', 'tests', '__tests__'].some((t) => fs.existsSync(path.join(out, 'node_modules', n, t))));
    expect(dependencyTests).toEqual([]);
  });

  it('when each service is started from the output as the image starts it, then each turns ready and serves its metrics', async () => {
    const ready: Record<Name, () => Promise<boolean>> = {
      account: () => grpcServing(healthAddr('account')),
      scheduler: () => grpcServing(healthAddr('scheduler')),
      message: () => grpcServing(healthAddr('message')),
      webhook: () => grpcServing(healthAddr('webhook')),
      otp: () => grpcServing(healthAddr('otp')),
      'device-hub': async () => (await grpcServing(healthAddr('device-hub'))) && httpsHealthy(`${urlOf('agents')}/readyz`, certs.caPem),
      gateway: () => httpsHealthy(`${urlOf('gateway')}/readyz`, certs.caPem),
      dashboard: () => httpsHealthy(`${urlOf('dashboard')}/readyz`, certs.caPem),
    };
    const ownEnv = (name: Name): Record<string, string> => {
      const own: Record<string, string> = { METRICS_PORT: String(metricsPorts[name]), ...grpcTlsEnv(name) };
      if (name === 'gateway' || name === 'dashboard') own.HTTP_PORT = String(ports[name]);
      else Object.assign(own, { GRPC_PORT: String(ports[name]), GRPC_HEALTH_PORT: String(healthPorts[name]) });
      if (name === 'device-hub') Object.assign(own, { AGENT_PORT: String(ports.agents), HUB_PUBLIC_URL: urlOf('agents') });
      return own;
    };
    const outcome = {} as Record<Name, string>;
    /** What the service came to: 'ready', or why not with the end of its output. */
    const start = async (name: Name): Promise<string> => {
      const logFile = path.join(logDir, `${name}.log`);
      const p = new ImageProcess(name, [`services/${name}/dist/main.js`], {
        cwd: out,
        env: { ...baseEnv, ...ownEnv(name) },
        logFile,
        user,
      });
      processes.set(name, p);
      const deadline = Date.now() + 60_000;
      while (!(await ready[name]())) {
        if (!p.running) return `exited during start-up:\n${tail(logFile)}`;
        if (Date.now() > deadline) return `not ready after 60 s:\n${tail(logFile)}`;
        await new Promise((r) => setTimeout(r, 200));
      }
      const metrics = await httpStatus(`http://127.0.0.1:${metricsPorts[name]}/metrics`);
      return metrics === 200 ? 'ready' : `ready, but /metrics answered ${metrics}`;
    };
    for (const group of START_GROUPS) {
      const results = await Promise.all(group.map(start));
      group.forEach((name, i) => (outcome[name] = results[i]!));
    }
    expect(outcome).toEqual(Object.fromEntries(SERVICES.map((name) => [name, 'ready'])));
  }, 150_000);

  it('when an operator runs the admin CLI from the image, then it creates a client and a device that pairs with the hub', async () => {
    const cli = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, ['tools/admin/dist/cli.js', ...args], {
        cwd: out,
        env: { ...baseEnv, ...grpcTlsEnv('admin') },
        ...user,
      });
      return JSON.parse(stdout) as Record<string, string>;
    };
    const client = await cli('create-client', '--email', `image-${runId}@example.com`, '--name', 'image test');
    expect(client.client_id).toMatch(/^client_/);
    expect(client.live_api_key).toMatch(/^sgw_live_/);
    const device = await cli('create-device', '--client', client.client_id!, '--name', 'image phone');
    expect(device.pairing_url).toMatch(new RegExp(`^${urlOf('agents')}/v1/agent/pair\\?code=`));
  }, 60_000);

  it("when the chart's init container script waits for a port that is closed, then it says so and exits 0 once the port accepts connections", async () => {
    const template = fs.readFileSync(path.join(REPO_ROOT, 'charts/sms-gateway/templates/_initcontainers.tpl'), 'utf8');
    const script = /\{\{-? define "smsgw\.waitScript" -?\}\}\n([\s\S]*?)\{\{-? end -?\}\}/.exec(template)?.[1];
    expect(script).toContain('process.argv');
    const closed = await freePort();
    const postgres = new URL(infra!.postgresUrl);
    const logFile = path.join(logDir, 'wait-for-dependencies.log');
    // As the chart runs it: the image's entrypoint (node) with `-e <script> host:port ...`.
    const wait = new ImageProcess(
      'wait-for-dependencies',
      ['-e', script!, `${postgres.hostname}:${postgres.port}`, `127.0.0.1:${closed}`],
      {
        cwd: out,
        env: { NODE_ENV: 'production', PATH: baseEnv.PATH!, HOME: baseEnv.HOME! },
        logFile,
        user,
      },
    );
    await eventually(
      async () => (fs.readFileSync(logFile, 'utf8').includes(`waiting for 127.0.0.1:${closed}`) ? true : undefined),
      15_000,
      'the wait message',
    );
    expect(wait.running).toBe(true);
    const server = net.createServer((socket) => socket.destroy()).listen(closed, '127.0.0.1');
    try {
      expect((await within(wait.exited, 10_000)) ?? 'still waiting').toEqual({ code: 0, signal: null });
    } finally {
      if (wait.running) wait.child.kill('SIGKILL');
      server.close();
    }
  }, 40_000);

  it('when each service gets SIGTERM, then it exits 0 within 15 s', async () => {
    const outcome = {} as Record<Name, string>;
    // Callers first, as a rollout or uninstall would end them at the latest.
    for (const name of [...SERVICES].reverse()) {
      const p = processes.get(name);
      if (!p?.running) {
        outcome[name] = 'was not running';
        continue;
      }
      const sent = Date.now();
      p.child.kill('SIGTERM');
      const exit = await within(p.exited, 15_000);
      outcome[name] =
        exit === undefined
          ? `still running 15 s after SIGTERM:\n${tail(path.join(logDir, `${name}.log`))}`
          : exit.code === 0
            ? 'exited 0'
            : `exited ${exit.code ?? exit.signal} after ${Date.now() - sent} ms:\n${tail(path.join(logDir, `${name}.log`))}`;
    }
    expect(outcome).toEqual(Object.fromEntries(SERVICES.map((name) => [name, 'exited 0'])));
  }, 150_000);
});
