'use strict';
/**
 * Before any load: the machine, the stack (isolated), one client with one device, and the
 * simulated phone that keeps the device online.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { startStack, simulatedPhoneArgs, REPO_ROOT } = require('@smsgw/stack');
const { Admin } = require('@smsgw/admin');
const { waitOnline } = require('../lib/phones');
const { onCleanup, stopChild } = require('./cleanup');
const s = require('./settings');

/** @typedef {Awaited<ReturnType<Admin['createClient']>>} Client */
/** @typedef {Awaited<ReturnType<Admin['createDevice']>>} Device */
/** @typedef {{child: import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, import('node:stream').Readable>, sent: number, logFile: string}} Agent */
/** @typedef {ReturnType<typeof describeMachine>} Machine */
/**
 * What the phases share: the stack, the client, its device and phone, and the request headers.
 * @typedef {object} Run
 * @property {number} started when the run started (ms)
 * @property {Machine} machine
 * @property {import('@smsgw/stack').Stack} stack
 * @property {string} caPem the stack's CA
 * @property {(route: string) => string | string[]} atGateways a route's URL at each gateway replica
 * @property {Client} client
 * @property {Device} device
 * @property {Agent} agent the simulated phone
 * @property {Record<string, string>} sendHeaders the live key, the device and JSON
 */

/** This machine, printed at the top and recorded. */
function describeMachine() {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_mb: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadavg_at_start: os.loadavg().map((l) => s.round(l, 2)),
  };
}

/**
 * Prints the machine and the settings, starts the stack, a client, its device and the phone.
 * @returns {Promise<Run>}
 */
async function startRun() {
  const started = Date.now();
  const machine = describeMachine();
  s.say(
    `SMS gateway benchmark — ${machine.cpus} cores (${machine.cpu_model}), Node ${machine.node}, load average ${machine.loadavg_at_start.join(' ')}`,
  );
  s.say(
    `autocannon: ${s.CONNECTIONS} connections, pipelining ${s.PIPELINING}, ${s.WARMUP_S} s warm-up then ${s.DURATION_S} s measured, per phase`,
  );
  s.say(
    `rate limiter: RATE_LIMIT_PER_MINUTE=${s.RATE_LIMIT_PER_MINUTE} so it never refuses during the run, ` +
      'but its Redis sliding-window script still runs on every request',
  );
  fs.mkdirSync(s.DATA_DIR, { recursive: true });
  fs.mkdirSync(s.RESULTS_DIR, { recursive: true });

  const stack = await startTheStack();
  const { caPem } = stack.certs;
  // An experiment: more gateway replicas, autocannon's connections spread over them in turn.
  const gatewayUrls = [stack.gatewayUrl];
  for (let i = 1; i < s.GATEWAYS; i++) gatewayUrls.push(await stack.addGateway());
  if (s.GATEWAYS > 1)
    s.say(`  EXPERIMENT — ${s.GATEWAYS} gateway replicas (not comparable with a default run; the CPU table's gateway is the first one)`);
  /** @param {string} route */
  const atGateways = (route) => (s.GATEWAYS > 1 ? gatewayUrls.map((u) => `${u}${route}`) : `${stack.gatewayUrl}${route}`);

  const admin = new Admin(
    {
      accountAddress: stack.accountAddress,
      deviceHubAddress: stack.deviceHubAddress,
      webhookAddress: stack.webhookAddress,
      otpAddress: stack.otpAddress,
    },
    stack.grpcCredentials('admin'),
  );
  onCleanup('admin client', async () => admin.close());
  const client = await admin.createClient(`bench-${Date.now()}@example.com`, 'bench');
  // Thousands of codes to one prefix, none verified, is what the pumping guard holds back: off for
  // this client, so that phase 4 measures the send path and not the guard's refusals.
  await admin.setOtpGuard(client.client_id, { enabled: false });
  const device = await admin.createDevice(client.client_id, 'bench phone');
  const auth = { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id };

  const agent = startAgent(stack, client, device);
  await waitOnline({
    gatewayUrl: stack.gatewayUrl,
    ca: stack.certs.caPem,
    auth,
    deviceId: device.device_id,
    timeoutMs: 30_000,
    child: agent.child,
  }).catch((/** @type {Error} */ err) => {
    throw new Error(`${err.message}; see ${agent.logFile}`);
  });
  s.say(`  client ${client.client_id}, device ${device.device_id} online (simulated phone, default pacing 2-3 s per SMS)`);

  const sendHeaders = { ...auth, 'X-Device-ID': device.device_id, 'Content-Type': 'application/json' };
  return { started, machine, stack, caPem, atGateways, client, device, agent, sendHeaders };
}

/** The stack, isolated (a fresh database, NATS and Redis prefixes), stopped on the way out. */
async function startTheStack() {
  s.say('\nstarting the stack (isolated: fresh database, NATS and Redis prefixes)...');
  /** @type {Record<string, string>} */
  const env = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: s.RATE_LIMIT_PER_MINUTE, ...s.EXTRA_STACK_ENV };
  if (Object.keys(s.EXTRA_STACK_ENV).length > 0)
    s.say(`  EXPERIMENT — extra service environment: ${JSON.stringify(s.EXTRA_STACK_ENV)} (not comparable with a default run)`);
  const profiles = s.CPU_PROF_DIR;
  if (profiles) {
    fs.mkdirSync(profiles, { recursive: true });
    // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload toggles the profiler on SIGUSR2.
    env.NODE_OPTIONS = `--require ${path.join(s.BENCH_DIR, 'cpu-profile-preload.js')}`;
    env.BENCH_CPU_PROF_DIR = profiles;
  }
  // Logs of earlier runs: only the last few are kept.
  const oldLogs = fs
    .readdirSync(s.DATA_DIR)
    .filter((n) => n.startsWith('logs-'))
    .map((n) => path.join(s.DATA_DIR, n))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  for (const dir of oldLogs.slice(4)) fs.rmSync(dir, { recursive: true, force: true });
  /** @type {import('@smsgw/stack').Stack | undefined} */
  let stack;
  /** @type {Promise<import('@smsgw/stack').Stack> | undefined} */
  let starting;
  // Ctrl-C during the start-up: startStack stops what it started so far.
  const startUp = new globalThis.AbortController();
  onCleanup('stack', async () => {
    startUp.abort(new Error('stopped during start-up'));
    await starting?.catch(() => undefined);
    await stack?.stop();
  });
  // The stack picks free ports then starts the services: another program on the machine can take
  // one in between (EADDRINUSE). startStack stops what it started when it fails; try again.
  for (let attempt = 1; !stack; attempt++) {
    try {
      starting = startStack({ dataDir: s.DATA_DIR, isolated: true, env, log: (l) => s.say(`  ${l}`), signal: startUp.signal });
      stack = await starting;
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(/** @type {Error} */ (err).message))) throw err;
      s.say(`  a port was taken during start-up (EADDRINUSE), starting again (attempt ${attempt + 1})`);
    }
  }
  return stack;
}

/**
 * The simulated phone (android-agent, simulator driver, default pacing), as the end-to-end tests start it.
 * @param {import('@smsgw/stack').Stack} stack
 * @param {Client} client
 * @param {Device} device
 * @returns {Agent}
 */
function startAgent(stack, client, device) {
  const dataDir = path.join(s.DATA_DIR, `agent-${s.RUN_ID}`);
  const logFile = path.join(stack.logDir, 'agent.log');
  fs.mkdirSync(dataDir, { recursive: true });
  const log = fs.createWriteStream(logFile, { flags: 'a' });
  const child = spawn(
    process.execPath,
    simulatedPhoneArgs({
      repoRoot: REPO_ROOT,
      hubUrl: stack.hubUrl,
      caFile: stack.certs.caCertFile,
      clientId: client.client_id,
      devicePassword: device.device_password,
      dataDir,
    }),
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
  );
  const agent = { child, sent: 0, logFile };
  child.stderr.pipe(log);
  readline.createInterface({ input: child.stdout }).on('line', () => agent.sent++);
  onCleanup('agent', async () => {
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return agent;
}

module.exports = { startRun };
