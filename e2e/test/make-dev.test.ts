import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, REPO_ROOT } from '@smsgw/stack';

const CLI = path.join(REPO_ROOT, 'packages/stack/dist/cli.js');
const PORT_VARIABLES = [
  'GATEWAY_PORT',
  'HUB_AGENT_PORT',
  'DASHBOARD_PORT',
  'ACCOUNT_GRPC_PORT',
  'DEVICE_HUB_GRPC_PORT',
  'OTP_GRPC_PORT',
  'SCHEDULER_GRPC_PORT',
  'WEBHOOK_GRPC_PORT',
  'SMTP_CATCHER_PORT',
  'GATEWAY_METRICS_PORT',
  'ACCOUNT_METRICS_PORT',
  'MESSAGE_METRICS_PORT',
  'DEVICE_HUB_METRICS_PORT',
  'OTP_METRICS_PORT',
  'SCHEDULER_METRICS_PORT',
  'WEBHOOK_METRICS_PORT',
  'DASHBOARD_METRICS_PORT',
];

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `make dev`'s own command (what `make dev` runs after the build), in a data folder of the test's, isolated. */
function makeDev(dir: string, env: Record<string, string>): Run {
  let output = '';
  const child = spawn(process.execPath, [CLI, 'dev'], {
    env: { ...process.env, ...env, SMSGW_STACK_DIR: dir, SMSGW_DEV_ISOLATED: '1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(run: Run, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!run.output().includes(text)) {
    if (run.child.exitCode !== null) throw new Error(`make dev exited (${run.child.exitCode}):\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" after ${timeoutMs} ms:\n${run.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Holds a default internal port, as a leftover process of a test run, or another program's outgoing connection, did. */
async function hold(port: number): Promise<net.Server | undefined> {
  // What connects (make dev's probe of a health port it raced for) is read and let go, so that the
  // connection ends when its peer closes it and close() below does not wait on it.
  const server = net.createServer((socket) => socket.resume());
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined)); // already taken by someone else: just as good
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('make dev on a machine where ports are taken', () => {
  const dirs: string[] = [];
  const runs: Run[] = [];
  const held: (net.Server | undefined)[] = [];

  afterAll(async () => {
    for (const run of runs) if (run.child.exitCode === null) run.child.kill('SIGINT');
    await Promise.all(runs.map((r) => r.exited));
    await Promise.all(held.map((server) => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when the message service default port and the otp service default health port are taken, or a health port is taken after the check, then make dev comes up on free ones and says which; a second make dev and one whose gateway port is taken each print one line and exit 1 with nothing left running', async () => {
    held.push(await hold(32052), await hold(32154));
    const env: Record<string, string> = {};
    for (const variable of PORT_VARIABLES) env[variable] = String(await freePort());
    // The otp service on its defaults: its health port (its gRPC port + 100) is the one held.
    delete env.OTP_GRPC_PORT;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'make-dev-'));
    dirs.push(dir);

    const first = makeDev(dir, env);
    runs.push(first);
    // Once make dev has checked its ports (it says the held ones moved), another program takes the
    // webhook service's health port before the service binds it, as an outgoing connection would.
    await waitFor(first, 'port 32052 is taken', 30_000);
    const raced = Number(env.WEBHOOK_GRPC_PORT) + 100;
    held.push(await hold(raced));
    await waitFor(first, 'SMS gateway is running', 90_000);
    expect(first.output()).toMatch(
      /port 32052 is taken: the message service \(gRPC\) listens on \d+ instead \(set MESSAGE_GRPC_PORT to choose\)\./,
    );
    expect(first.output()).toMatch(
      /port 32154 is taken: the otp service's health server \(plaintext gRPC\) listens on \d+ instead \(set OTP_GRPC_HEALTH_PORT to choose\)\./,
    );
    expect(first.output()).toMatch(
      new RegExp(
        `port ${raced} was taken while make dev started: the webhook service's health server \\(plaintext gRPC\\) listens on \\d+ instead \\(set WEBHOOK_GRPC_HEALTH_PORT to choose\\)\\.`,
      ),
    );
    expect(first.output()).toContain(`https://127.0.0.1:${env.GATEWAY_PORT}`);

    // The same data folder while the first still runs.
    const second = makeDev(dir, env);
    runs.push(second);
    expect(await second.exited).toBe(1);
    const secondLines = second.output().trim().split('\n');
    expect(secondLines).toEqual([
      expect.stringMatching(new RegExp(`^\\[stack\\] make dev is already running \\(pid ${first.child.pid}\\) with this data folder`)),
    ]);

    // Another folder, but the gateway's port is the first one's.
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'make-dev-'));
    dirs.push(otherDir);
    const otherEnv: Record<string, string> = {};
    for (const variable of PORT_VARIABLES) otherEnv[variable] = String(await freePort());
    otherEnv.GATEWAY_PORT = env.GATEWAY_PORT!;
    const third = makeDev(otherDir, otherEnv);
    runs.push(third);
    expect(await third.exited).toBe(1);
    expect(third.output().trim().split('\n')).toEqual([
      `[stack] port ${env.GATEWAY_PORT} is taken: the gateway (the API) cannot listen on it. Free it, or set GATEWAY_PORT to another port (e.g. GATEWAY_PORT=${Number(env.GATEWAY_PORT) + 1000} make dev).`,
    ]);
    // Nothing of the third was left running: its SMTP catcher and services never listened.
    for (const variable of ['SMTP_CATCHER_PORT', 'ACCOUNT_GRPC_PORT', 'DASHBOARD_PORT'])
      expect(await canConnect(Number(otherEnv[variable]))).toBe(false);
    expect(fs.existsSync(path.join(otherDir, 'dev.lock'))).toBe(false);

    // The first is untouched by the other two, and Ctrl-C stops it cleanly.
    expect(await canConnect(Number(env.GATEWAY_PORT))).toBe(true);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(fs.existsSync(path.join(dir, 'dev.lock'))).toBe(false);
    expect(await canConnect(Number(env.GATEWAY_PORT))).toBe(false);
  }, 180_000);
});
