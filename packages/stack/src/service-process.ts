import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { healthService } from '@smsgw/platform';

export type ServiceName = 'account' | 'message' | 'otp' | 'device-hub' | 'gateway' | 'scheduler' | 'webhook' | 'dashboard' | 'smpp';

const HealthClient = grpc.makeGenericClientConstructor(healthService, 'Health');

/** True when the gRPC server at `address` answers SERVING for every service it serves. */
export function grpcServing(address: string, timeoutMs = 1000): Promise<boolean> {
  const client = new HealthClient(address, grpc.credentials.createInsecure());
  return new Promise<boolean>((resolve) => {
    (client as unknown as { Check: (r: object, o: object, cb: (e: Error | null, res?: { status: unknown }) => void) => void }).Check(
      { service: '' },
      { deadline: Date.now() + timeoutMs },
      (err, res) => resolve(!err && (res?.status === 'SERVING' || res?.status === 1)),
    );
  }).finally(() => client.close());
}

/**
 * True when `GET <url>` over HTTPS, trusting `ca`, answers 200; an `http:` URL (a service run as
 * behind a TLS-ending proxy) is asked over plain HTTP.
 */
export function httpsHealthy(url: string, ca: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('http:') ? http.get : https.get;
    const req = get(url, { ca, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
  });
}

export interface ServiceSpec {
  name: ServiceName | 'agent';
  /** Arguments after `node`, e.g. the service's dist/main.js. */
  args: string[];
  env: Record<string, string>;
  logFile: string;
  ready?: () => Promise<boolean>;
}

/** One service running as its own process, with its output in a log file. */
export class ServiceProcess {
  private child?: ChildProcess;
  private exited?: Promise<number | null>;

  constructor(readonly spec: ServiceSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(timeoutMs = 30_000): Promise<void> {
    fs.mkdirSync(path.dirname(this.spec.logFile), { recursive: true });
    const out = fs.openSync(this.spec.logFile, 'a');
    this.child = spawn(process.execPath, ['--enable-source-maps', ...this.spec.args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...this.spec.env },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    const child = this.child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    if (!this.spec.ready) return;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`${this.spec.name} exited during start-up:\n${this.tail()}`);
      if (await this.spec.ready()) return;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`${this.spec.name} was not ready after ${timeoutMs} ms:\n${this.tail()}`);
  }

  /** SIGTERM (or `signal`), then SIGKILL if it has not exited within `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (!this.child || !this.running) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  tail(lines = 30): string {
    try {
      return fs.readFileSync(this.spec.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no output)';
    }
  }
}

/**
 * The arguments after `node` that run a simulated phone (the agent's
 * simulator driver) for a device against this stack: `make dev`, the
 * end-to-end tests and the benchmark start it the same way.
 */
export function simulatedPhoneArgs(options: {
  repoRoot: string;
  hubUrl: string;
  caFile: string;
  clientId: string;
  devicePassword: string;
  dataDir: string;
  extra?: string[];
}): string[] {
  return [
    path.join(options.repoRoot, 'android-agent/dist/cli.js'),
    '--driver',
    'simulator',
    '--hub',
    options.hubUrl,
    '--ca',
    options.caFile,
    '--client',
    options.clientId,
    '--device-password',
    options.devicePassword,
    '--data-dir',
    options.dataDir,
    '--log-json',
    ...(options.extra ?? []),
  ];
}

/**
 * A simulated phone for a device of this stack, as a process (not started):
 * its data folder is `<logDir>/<name>`, its log `<logDir>/<name>.log`.
 */
export function simulatedPhone(
  stack: { hubUrl: string; certs: { caCertFile: string }; logDir: string },
  device: { clientId: string; devicePassword: string },
  options: { repoRoot: string; name?: string; extra?: string[]; ready?: () => Promise<boolean> },
): ServiceProcess {
  const name = options.name ?? 'agent';
  return new ServiceProcess({
    name: 'agent',
    args: simulatedPhoneArgs({
      repoRoot: options.repoRoot,
      hubUrl: stack.hubUrl,
      caFile: stack.certs.caCertFile,
      clientId: device.clientId,
      devicePassword: device.devicePassword,
      dataDir: path.join(stack.logDir, name),
      extra: options.extra,
    }),
    env: {},
    logFile: path.join(stack.logDir, `${name}.log`),
    ready: options.ready,
  });
}
