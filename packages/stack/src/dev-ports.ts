import fs from 'node:fs';
import net from 'node:net';
import { freePort } from './ports';

/**
 * The ports `make dev` listens on. The public ones are what a developer types or a phone pairs
 * with (the curl line, the dashboard, the pairing URL saved on the phone), so `make dev` never
 * moves them on its own: a taken one stops it before anything starts. The internal ones only
 * connect the services to each other, so a taken one is replaced by a free port and said.
 *
 * The internal defaults lie below Linux's ephemeral range (32768-60999, where the kernel picks the
 * local port of every outgoing connection of every program on the machine) and above the range the
 * tests' stacks draw from (`ports.ts`, 10000-32000): no outgoing connection can take one between
 * the check below and the service's bind, as one took 50154 (the otp service's health port) when
 * the defaults were 50051-50056 and 50151-50156. The chart keeps those (see kubernetes.md).
 */
export interface DevPort {
  key: DevPortKey;
  /** The environment variable that sets it. */
  variable: string;
  fallback: number;
  /** Who listens on it, for the one line that says it is taken. */
  listener: string;
  internal: boolean;
  /** A gRPC health port: its default is that gRPC port (as resolved) + 100. */
  healthOf?: GrpcDevPortKey;
}

export type GrpcDevPortKey = 'account' | 'message' | 'deviceHub' | 'otp' | 'scheduler' | 'webhook';
export type DevPortKey =
  'gateway' | 'agents' | 'dashboard' | 'smpp' | 'smppHealth' | GrpcDevPortKey | 'smtp' | `metrics:${string}` | `health:${GrpcDevPortKey}`;

const METRICS_SERVICES = ['gateway', 'account', 'message', 'device-hub', 'otp', 'scheduler', 'webhook', 'dashboard', 'smpp'] as const;

const GRPC_SERVICES: readonly { key: GrpcDevPortKey; variable: string; listener: string }[] = [
  { key: 'account', variable: 'ACCOUNT_GRPC_PORT', listener: 'the account service' },
  { key: 'message', variable: 'MESSAGE_GRPC_PORT', listener: 'the message service' },
  { key: 'deviceHub', variable: 'DEVICE_HUB_GRPC_PORT', listener: 'the device-hub' },
  { key: 'otp', variable: 'OTP_GRPC_PORT', listener: 'the otp service' },
  { key: 'scheduler', variable: 'SCHEDULER_GRPC_PORT', listener: 'the scheduler' },
  { key: 'webhook', variable: 'WEBHOOK_GRPC_PORT', listener: 'the webhook service' },
];

export const DEV_PORTS: readonly DevPort[] = [
  { key: 'gateway', variable: 'GATEWAY_PORT', fallback: 8443, listener: 'the gateway (the API)', internal: false },
  {
    key: 'agents',
    variable: 'HUB_AGENT_PORT',
    fallback: 8444,
    listener: 'the device-hub (where phones pair and connect)',
    internal: false,
  },
  { key: 'dashboard', variable: 'DASHBOARD_PORT', fallback: 8445, listener: 'the dashboard', internal: false },
  { key: 'smpp', variable: 'SMPP_TLS_PORT', fallback: 3550, listener: 'the SMPP server (over TLS)', internal: false },
  { key: 'smppHealth', variable: 'SMPP_HEALTH_PORT', fallback: 32250, listener: "the SMPP server's health server", internal: true },
  ...GRPC_SERVICES.map(({ key, variable, listener }, i) => ({
    key,
    variable,
    fallback: 32051 + i,
    listener: `${listener} (gRPC)`,
    internal: true,
  })),
  ...GRPC_SERVICES.map(({ key, variable, listener }, i) => ({
    key: `health:${key}` as const,
    variable: variable.replace(/_PORT$/, '_HEALTH_PORT'),
    fallback: 32151 + i,
    listener: `${listener}'s health server (plaintext gRPC)`,
    internal: true,
    healthOf: key,
  })),
  { key: 'smtp', variable: 'SMTP_CATCHER_PORT', fallback: 2525, listener: 'the local SMTP catcher', internal: true },
  ...METRICS_SERVICES.map((service, i) => ({
    key: `metrics:${service}` as const,
    variable: `${service.toUpperCase().replace(/-/g, '_')}_METRICS_PORT`,
    fallback: 9460 + i,
    listener: `the ${service}'s /metrics`,
    internal: true,
  })),
];

/** A port `make dev` cannot use: its message is the one line the developer reads. */
export class DevPortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevPortError';
  }
}

/** Whether nothing listens on `port` of 127.0.0.1 right now. */
export function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export interface ResolvedDevPorts {
  ports: Record<DevPortKey, number>;
  /** One line for each internal port that was taken and replaced. */
  moved: string[];
}

/**
 * Every port of `make dev`, checked before anything starts: a taken public port, or a taken port
 * the developer chose with its variable, throws a DevPortError naming the port, its listener and
 * the variable; a taken internal default is replaced by a free port. A gRPC health port is its
 * gRPC port + 100 unless its own variable (`OTP_GRPC_HEALTH_PORT`, ...) sets it.
 */
export async function resolveDevPorts(
  env: NodeJS.ProcessEnv,
  isFree: (port: number) => Promise<boolean> = portIsFree,
  pickFree: () => Promise<number> = () => freePort(),
): Promise<ResolvedDevPorts> {
  const ports = {} as Record<DevPortKey, number>;
  const moved: string[] = [];
  const used = new Set<number>();
  // The ports the developer gave: an internal default that is one of them moves out of its way.
  const givenPorts = new Set(DEV_PORTS.map((p) => Number(env[p.variable] || NaN)).filter((port) => Number.isInteger(port)));
  for (const p of DEV_PORTS) {
    const chosen = env[p.variable];
    const given = chosen !== undefined && chosen !== '';
    let port = p.healthOf ? ports[p.healthOf] + 100 : p.fallback;
    if (given) {
      port = Number(chosen);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new DevPortError(`${p.variable}=${chosen} is not a port number (1 to 65535): it sets the port of ${p.listener}.`);
    }
    if (used.has(port) && (given || !p.internal))
      throw new DevPortError(
        `port ${port} is given twice: ${p.variable} (${p.listener}) names a port another of make dev's services already has.`,
      );
    // An internal default that another of make dev's ports has (a health port: its gRPC port + 100) moves too.
    if (used.has(port) || (!given && givenPorts.has(port)) || !(await isFree(port))) {
      if (!p.internal || given) {
        throw new DevPortError(
          `port ${port} is taken: ${p.listener} cannot listen on it. Free it, or set ${p.variable} to another port (e.g. ${p.variable}=${port + 1000} make dev).`,
        );
      }
      const replacement = await pickFree();
      moved.push(`port ${port} is taken: ${p.listener} listens on ${replacement} instead (set ${p.variable} to choose).`);
      port = replacement;
    }
    used.add(port);
    ports[p.key] = port;
  }
  return { ports, moved };
}

/**
 * The internal port of make dev's own choosing that a service found taken at its bind (EADDRINUSE
 * in `text`, a start-up failure), which make dev may move and start again; undefined for a public
 * port, a port given by its variable, or another failure.
 */
export function clashedInternalPort(text: string, ports: Record<DevPortKey, number>, env: NodeJS.ProcessEnv): DevPort | undefined {
  const busy = /EADDRINUSE[^\n]*?:(\d+)/.exec(text);
  const port = busy ? describePort(Number(busy[1]), ports) : undefined;
  return port && port.internal && !env[port.variable] ? port : undefined;
}

/** The listener and variable of a port, to explain an EADDRINUSE that raced the check. */
export function describePort(port: number, ports: Record<DevPortKey, number>): DevPort | undefined {
  return DEV_PORTS.find((p) => ports[p.key] === port);
}

/**
 * One `make dev` at a time per data folder: a second one would share its data and fight over
 * its ports. The lock holds the pid; a lock whose process is gone is taken over.
 */
export function takeDevLock(file: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => {
        if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = readPid(file);
      if (pid !== undefined && pid !== process.pid && isAlive(pid)) {
        throw new DevPortError(
          `make dev is already running (pid ${pid}) with this data folder: use that one (its addresses are printed where it runs), or stop it with Ctrl-C there or kill ${pid}.`,
        );
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new DevPortError(`could not take the lock ${file}: another make dev is starting at the same moment.`);
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
