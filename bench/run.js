'use strict';
/**
 * `make bench`: one run that measures, on this machine,
 *   1. a bare Koa HTTPS hello-world (its own process) — the ceiling of one Node HTTPS process;
 *   2. POST /v1/sms/send accepted (200) with every service running and one simulated phone online;
 *   3. messages accepted per second through POST /v1/sms/send-bulk (100 recipients a request);
 *   4. POST /v1/sms/send-otp (live key, a new number for every request: the 10-an-hour limit per
 *      number is never hit; the client's pumping guard off) and 5. POST /v1/sms/verify-otp (a pool of test-key OTPs made first,
 *      each verified wrong, wrong, then right: three 200 answers per OTP);
 * with the same autocannon settings for each, plus each service's resident memory (idle and after
 * the load) and the CPU each process used during each measured phase.
 * Prints a table and writes bench/results/latest.json.
 *
 * BENCH_SMOKE=1: a smoke run (1 s phases, 2 connections; see knobs.js).
 * Knobs (environment): BENCH_CONNECTIONS (50), BENCH_DURATION (15 s), BENCH_WARMUP (3 s),
 * BENCH_GATEWAYS (1; more starts more gateway replicas and spreads the connections over them),
 * BENCH_CPU_PROF=1 (each service writes a V8 CPU profile of the send and bulk phases to
 * bench/results/cpu-prof-<run>/; summarise with `node bench/profile-summary.js <dir>`).
 */
const { spawn, fork } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const autocannon = require('autocannon');
const { startStack, simulatedPhoneArgs, REPO_ROOT } = require('@smsgw/stack');
const { Admin } = require('@smsgw/admin');
const { request } = require('./lib/http');
const { SMOKE, intEnv } = require('./lib/knobs');
const { waitOnline } = require('./lib/phones');
const { clockTicks, cpuTicks, machineTicks, pidsOf, rssKb } = require('./lib/proc');
const { sleep } = require('./lib/time');

const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 50, 2);
const DURATION_S = intEnv('BENCH_DURATION', 15, 1);
const WARMUP_S = intEnv('BENCH_WARMUP', 3, 1);
const PIPELINING = 1;
const RATE_LIMIT_PER_MINUTE = '1000000000';
const BULK_SIZE = 100;
const TO = '+33612345678';
const TEXT = 'Benchmark: bonjour depuis la passerelle SMS';
const GOAL_RATIO = 0.3;
/** OTPs made (test key, code 123456) before the verify phase; each serves three verifies. */
const OTP_POOL = intEnv('BENCH_OTP_POOL', 5000, 20);

const BENCH_DIR = __dirname;
const DATA_DIR = path.join(BENCH_DIR, '.data');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const RUN_ID = new Date().toISOString().replace(/[:.]/g, '-');
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF === '1' ? path.join(RESULTS_DIR, `cpu-prof-${RUN_ID}`) : undefined;
const CLK_TCK = clockTicks();
const EXTRA_STACK_ENV = process.env.BENCH_STACK_ENV ? JSON.parse(process.env.BENCH_STACK_ENV) : {};
const GATEWAYS = intEnv('BENCH_GATEWAYS', 1);

const say = (line) => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------- cleanup ----

/** What this run started, stopped in reverse order on the way out, whatever happens. */
const cleanups = [];
let cleaningUp;
function cleanupAll() {
  cleaningUp ??= (async () => {
    while (cleanups.length > 0) {
      const { name, fn } = cleanups.pop();
      try {
        await withTimeout(fn(), 30_000, `stopping ${name}`);
      } catch (err) {
        say(`warning: ${name}: ${err.message}`);
      }
    }
  })();
  return cleaningUp;
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    Promise.resolve(promise).finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    say(`\n${signal}: stopping everything this run started...`);
    cleanupAll().finally(() => process.exit(130));
  });
}

/** A child process of this run, stopped with SIGTERM (then SIGKILL after 5 s). */
function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ------------------------------------------------------- /proc sampling ----

/**
 * CPU used by each process (or group of processes) between start() and stop(), in cores
 * (1.0 = one core busy the whole time). `groups` maps a label to a function giving pids.
 */
function cpuSampler(groups) {
  const snapshot = () => {
    const s = {};
    for (const [label, pids] of Object.entries(groups)) {
      s[label] = new Map();
      for (const pid of pids()) {
        const t = pid === process.pid ? undefined : cpuTicks(pid);
        if (t !== undefined) s[label].set(pid, t);
      }
    }
    return s;
  };
  let before;
  let t0;
  let m0;
  let self0;
  return {
    start() {
      before = snapshot();
      t0 = process.hrtime.bigint();
      m0 = machineTicks();
      self0 = process.cpuUsage();
    },
    stop() {
      const after = snapshot();
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const m1 = machineTicks();
      const self = process.cpuUsage(self0);
      const cores = {};
      for (const [label, pids] of Object.entries(after)) {
        let ticks = 0;
        for (const [pid, t] of pids) ticks += t - (before[label].get(pid) ?? 0);
        cores[label] = round(ticks / CLK_TCK / seconds, 2);
      }
      cores['bench (autocannon)'] = round((self.user + self.system) / 1e6 / seconds, 2);
      const machineBusy = round(((m1.busy - m0.busy) / (m1.total - m0.total)) * os.cpus().length, 2);
      const ours = Object.values(cores).reduce((a, b) => a + b, 0);
      return {
        seconds: round(seconds, 1),
        cores,
        machine_busy_cores: machineBusy,
        other_processes_cores: round(Math.max(0, machineBusy - ours), 2),
      };
    },
  };
}

function round(n, digits = 0) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

// --------------------------------------------------------- the processes ----

/** The bare Koa HTTPS hello-world, forked; resolves once it listens. */
async function startHelloWorld(certs) {
  const child = fork(path.join(BENCH_DIR, 'hello-server.js'), [certs.certFile, certs.keyFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  cleanups.push({ name: 'hello-world', fn: () => stopChild(child) });
  const port = await withTimeout(
    new Promise((resolve, reject) => {
      child.once('message', (m) => resolve(m.port));
      child.once('exit', (code) => reject(new Error(`hello-world exited with ${code}`)));
    }),
    10_000,
    'hello-world start',
  );
  return { child, url: `https://127.0.0.1:${port}` };
}

/** The simulated phone (android-agent, simulator driver, default pacing), as the end-to-end tests start it. */
function startAgent(stack, client, device) {
  const dataDir = path.join(DATA_DIR, `agent-${RUN_ID}`);
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
  cleanups.push({
    name: 'agent',
    fn: async () => {
      await stopChild(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  });
  return agent;
}

// --------------------------------------------------------------- the load ----

/**
 * The same autocannon settings for every phase: a warm-up run (discarded), then the measured
 * run; `around` is told when the measured run starts and ends (for the CPU sampler).
 */
async function load(url, { method = 'GET', headers = {}, body, requests, ca }, around) {
  const options = {
    url,
    method,
    headers,
    body,
    ...(requests ? { requests } : {}),
    connections: CONNECTIONS,
    pipelining: PIPELINING,
    timeout: 10,
    // autocannon 8 always connects with rejectUnauthorized: false (it spreads tlsOptions and
    // then overrides that flag), so `ca` is passed for completeness but not checked; the TLS
    // handshake and encryption costs are the same either way.
    tlsOptions: { ca },
  };
  say(`  warm-up ${WARMUP_S} s...`);
  await autocannon({ ...options, duration: WARMUP_S });
  say(`  measuring ${DURATION_S} s with ${CONNECTIONS} connections...`);
  around.start();
  try {
    const run = autocannon({ ...options, duration: DURATION_S });
    const perSecond = new Array(DURATION_S).fill(0);
    const t0 = Date.now();
    run.on('response', () => {
      const i = Math.floor((Date.now() - t0) / 1000);
      if (i < DURATION_S) perSecond[i]++;
    });
    const result = await run;
    result.perSecond = perSecond;
    return result;
  } finally {
    around.stop();
  }
}

function summarise(result, okStatus = '200') {
  const ok = result.statusCodeStats?.[okStatus]?.count ?? 0;
  return {
    accepted: ok,
    accepted_per_s: round(ok / result.duration, 1),
    requests_total: result.requests.total,
    requests_per_s_avg: round(result.requests.average, 1),
    latency_ms: {
      avg: round(result.latency.average, 2),
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    status_codes: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration_s: result.duration,
    /** Responses (any status) in each second of the measured run: shows a trend, e.g. as the queue grows. */
    per_second: result.perSecond,
  };
}

// ------------------------------------------------------------------- main ----

async function main() {
  const started = Date.now();
  const machine = {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_mb: Math.round(os.totalmem() / 2 ** 20),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadavg_at_start: os.loadavg().map((l) => round(l, 2)),
  };
  say(
    `SMS gateway benchmark — ${machine.cpus} cores (${machine.cpu_model}), Node ${machine.node}, load average ${machine.loadavg_at_start.join(' ')}`,
  );
  say(`autocannon: ${CONNECTIONS} connections, pipelining ${PIPELINING}, ${WARMUP_S} s warm-up then ${DURATION_S} s measured, per phase`);
  say(
    `rate limiter: RATE_LIMIT_PER_MINUTE=${RATE_LIMIT_PER_MINUTE} so it never refuses during the run, ` +
      'but its Redis sliding-window script still runs on every request',
  );
  fs.mkdirSync(DATA_DIR, { recursive: true });
  fs.mkdirSync(RESULTS_DIR, { recursive: true });

  // ---- the stack
  say('\nstarting the stack (isolated: fresh database, NATS and Redis prefixes)...');
  const env = { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE, ...EXTRA_STACK_ENV };
  if (Object.keys(EXTRA_STACK_ENV).length > 0)
    say(`  EXPERIMENT — extra service environment: ${JSON.stringify(EXTRA_STACK_ENV)} (not comparable with a default run)`);
  if (CPU_PROF_DIR) {
    fs.mkdirSync(CPU_PROF_DIR, { recursive: true });
    // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload toggles the profiler on SIGUSR2.
    env.NODE_OPTIONS = `--require ${path.join(BENCH_DIR, 'cpu-profile-preload.js')}`;
    env.BENCH_CPU_PROF_DIR = CPU_PROF_DIR;
  }
  // Logs of earlier runs: only the last few are kept.
  const oldLogs = fs
    .readdirSync(DATA_DIR)
    .filter((n) => n.startsWith('logs-'))
    .map((n) => path.join(DATA_DIR, n))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  for (const dir of oldLogs.slice(4)) fs.rmSync(dir, { recursive: true, force: true });
  let stack;
  cleanups.push({ name: 'stack', fn: () => stack?.stop() });
  // The stack picks free ports then starts the services: another program on the machine can take
  // one in between (EADDRINUSE). startStack stops what it started when it fails; try again.
  for (let attempt = 1; !stack; attempt++) {
    try {
      stack = await startStack({ dataDir: DATA_DIR, isolated: true, env, log: (l) => say(`  ${l}`) });
    } catch (err) {
      if (attempt >= 3 || !/EADDRINUSE/.test(String(err.message))) throw err;
      say(`  a port was taken during start-up (EADDRINUSE), starting again (attempt ${attempt + 1})`);
    }
  }
  const { caPem } = stack.certs;
  // An experiment: more gateway replicas, autocannon's connections spread over them in turn.
  const gatewayUrls = [stack.gatewayUrl];
  for (let i = 1; i < GATEWAYS; i++) gatewayUrls.push(await stack.addGateway());
  if (GATEWAYS > 1)
    say(`  EXPERIMENT — ${GATEWAYS} gateway replicas (not comparable with a default run; the CPU table's gateway is the first one)`);
  const atGateways = (route) => (GATEWAYS > 1 ? gatewayUrls.map((u) => `${u}${route}`) : `${stack.gatewayUrl}${route}`);

  const admin = new Admin(
    {
      accountAddress: stack.accountAddress,
      deviceHubAddress: stack.deviceHubAddress,
      webhookAddress: stack.webhookAddress,
      otpAddress: stack.otpAddress,
    },
    stack.grpcCredentials('admin'),
  );
  cleanups.push({ name: 'admin client', fn: async () => admin.close() });
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
  }).catch((err) => {
    throw new Error(`${err.message}; see ${agent.logFile}`);
  });
  say(`  client ${client.client_id}, device ${device.device_id} online (simulated phone, default pacing 2-3 s per SMS)`);

  const servicePids = () => Object.fromEntries(Object.entries(stack.services).map(([name, s]) => [name, s.pid]));
  const rssOf = (extra = {}) => {
    const out = {};
    for (const [name, pid] of Object.entries({ ...servicePids(), ...extra })) out[name] = pid ? rssKb(pid) : undefined;
    return out;
  };

  // ---- sanity: one of each request, verified with the CA, before the load
  const sendHeaders = { ...auth, 'X-Device-ID': device.device_id, 'Content-Type': 'application/json' };
  const sendBody = JSON.stringify({ to: TO, message: TEXT });
  const recipients = Array.from({ length: BULK_SIZE }, (_, i) => `+336120000${String(i).padStart(2, '0')}`);
  const bulkBody = JSON.stringify({ recipients, message: TEXT });
  const one = await request(`${stack.gatewayUrl}/v1/sms/send`, caPem, {
    method: 'POST',
    headers: sendHeaders,
    body: { to: TO, message: TEXT },
  });
  if (one.status !== 200 || one.body.status !== 'queued')
    throw new Error(`a single send was not accepted: ${one.status} ${JSON.stringify(one.body)}`);
  const bulk = await request(`${stack.gatewayUrl}/v1/sms/send-bulk`, caPem, {
    method: 'POST',
    headers: sendHeaders,
    body: { recipients, message: TEXT },
  });
  if (bulk.status !== 200 || bulk.body.total_recipients !== BULK_SIZE)
    throw new Error(`a bulk send was not accepted: ${bulk.status} ${JSON.stringify(bulk.body).slice(0, 500)}`);
  say(`  check: send → 200 ${one.body.status} (${one.body.message_id}); send-bulk → 200, ${bulk.body.total_recipients} messages queued`);

  // ---- the hello-world, in its own process
  const hello = await startHelloWorld(stack.certs);
  const helloCheck = await request(`${hello.url}/`, caPem);
  if (helloCheck.status !== 200 || helloCheck.body.success !== true)
    throw new Error(`hello-world answered ${helloCheck.status} ${JSON.stringify(helloCheck.body)}`);

  await sleep(2000); // let start-up work settle before the idle reading
  const rssIdle = rssOf({ agent: agent.child.pid, 'hello-world': hello.child.pid });

  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const groups = {
    ...Object.fromEntries(Object.keys(stack.services).map((name) => [name, () => [stack.services[name].pid]])),
    agent: () => [agent.child.pid],
    'hello-world': () => (hello.child.exitCode === null ? [hello.child.pid] : []),
    "postgres (this run's database)": () => pidsOf('postgres', (cmd) => cmd.includes(` ${database} `)),
    'postgres (WAL, checkpoints, other databases)': () => pidsOf('postgres', (cmd) => !cmd.includes(` ${database} `)),
    'redis-server': () => pidsOf('redis-server'),
    'nats-server': () => pidsOf('nats-server'),
  };
  const phases = {};
  const cpu = {};

  const measure = async (key, label, url, options, okStatus) => {
    say(`\n[${label}]`);
    const sampler = cpuSampler(groups);
    const profile = CPU_PROF_DIR && key !== 'hello_world';
    const toggleProfilers = () => {
      fs.writeFileSync(path.join(CPU_PROF_DIR, 'current-phase'), key);
      for (const s of Object.values(stack.services)) if (s.pid) process.kill(s.pid, 'SIGUSR2');
    };
    const around = {
      start: () => {
        if (profile) toggleProfilers();
        sampler.start();
      },
      stop: () => {
        cpu[key] = sampler.stop();
        if (profile) toggleProfilers();
      },
    };
    const result = await load(url, { ...options, ca: caPem }, around);
    phases[key] = summarise(result, okStatus);
    const p = phases[key];
    say(
      `  ${p.accepted} × ${okStatus} in ${p.duration_s} s → ${p.accepted_per_s}/s, p99 ${p.latency_ms.p99} ms, non-2xx ${p.non2xx}, errors ${p.errors}`,
    );
    say(`  responses per second: ${p.per_second.join(' ')}`);
  };

  await measure('hello_world', '1. bare Koa HTTPS hello-world (separate process)', `${hello.url}/`, {}, '200');
  await stopChild(hello.child);

  const sentBefore = agent.sent;
  await measure(
    'send',
    '2. POST /v1/sms/send accepted, every service running',
    atGateways('/v1/sms/send'),
    {
      method: 'POST',
      headers: sendHeaders,
      body: sendBody,
    },
    '200',
  );
  const rssAfterSend = rssOf({ agent: agent.child.pid });

  await measure(
    'bulk',
    `3. POST /v1/sms/send-bulk, ${BULK_SIZE} recipients per request`,
    atGateways('/v1/sms/send-bulk'),
    {
      method: 'POST',
      headers: sendHeaders,
      body: bulkBody,
    },
    '200',
  );
  phases.bulk.messages_accepted_per_s = round(phases.bulk.accepted_per_s * BULK_SIZE, 0);
  phases.bulk.recipients_per_request = BULK_SIZE;
  const rssAfterBulk = rssOf({ agent: agent.child.pid });
  const agentSentDuringRun = agent.sent - sentBefore;

  // ---- OTP: send (live key, a number of its own per request), then verify (a pool of test-key OTPs)
  const otpHeaders = { ...sendHeaders };
  let nextNumber = 0;
  const freshNumber = () => `+3367${String(nextNumber++).padStart(7, '0')}`;
  const check = await request(`${stack.gatewayUrl}/v1/sms/send-otp`, caPem, {
    method: 'POST',
    headers: otpHeaders,
    body: { to: freshNumber() },
  });
  if (check.status !== 200 || !check.body.otp_id)
    throw new Error(`send-otp was not accepted: ${check.status} ${JSON.stringify(check.body)}`);
  await measure(
    'otp_send',
    '4. POST /v1/sms/send-otp, a new number per request',
    atGateways('/v1/sms/send-otp'),
    {
      method: 'POST',
      headers: otpHeaders,
      requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ to: freshNumber() }) }) }],
    },
    '200',
  );

  say(`\n  making ${OTP_POOL} test-key OTPs for the verify phase...`);
  const testHeaders = {
    'X-API-Key': client.test_api_key,
    'X-Client-ID': client.client_id,
    'X-Device-ID': device.device_id,
    'Content-Type': 'application/json',
  };
  const pool = [];
  let lastMessage;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (pool.length < OTP_POOL) {
        // A 503 (a deadline passed on a loaded machine) is retried with the same idempotency key, as the API asks (409: that first try still runs).
        const key = `bench-otp-${randomUUID()}`;
        const body = { to: freshNumber() };
        let r;
        for (let attempt = 1; ; attempt++) {
          r = await request(`${stack.gatewayUrl}/v1/sms/send-otp`, caPem, {
            method: 'POST',
            headers: { ...testHeaders, 'Idempotency-Key': key },
            body,
          });
          if ((r.status !== 503 && r.status !== 409) || attempt === 5) break;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
        if (r.status !== 200) throw new Error(`a test OTP was not made: ${r.status} ${JSON.stringify(r.body)}`);
        pool.push(r.body.otp_id);
        lastMessage = r.body.message_id;
      }
    }),
  );
  // The simulated device of test keys walks each of their SMS through its states: let it finish first.
  const drainStarted = Date.now();
  while (Date.now() - drainStarted < 180_000) {
    const s = await request(`${stack.gatewayUrl}/v1/sms/status/${lastMessage}`, caPem, { headers: testHeaders });
    if (s.body.status === 'delivered') break;
    await sleep(1000);
  }
  say(`  pool ready; the simulated device drained it in ${round((Date.now() - drainStarted) / 1000, 1)} s`);
  let nextVerify = 0;
  await measure(
    'otp_verify',
    '5. POST /v1/sms/verify-otp (wrong, wrong, then right code per OTP)',
    atGateways('/v1/sms/verify-otp'),
    {
      method: 'POST',
      headers: { 'X-API-Key': client.test_api_key, 'X-Client-ID': client.client_id, 'Content-Type': 'application/json' },
      requests: [
        {
          setupRequest: (req) => {
            const k = nextVerify++;
            const pass = Math.floor(k / pool.length);
            return { ...req, body: JSON.stringify({ otp_id: pool[k % pool.length], code: pass === 2 ? '123456' : '000000' }) };
          },
        },
      ],
    },
    '200',
  );
  phases.otp_verify.pool = pool.length;

  // ---- report
  const ratio = round(phases.send.accepted_per_s / phases.hello_world.accepted_per_s, 3);
  const table = [
    ['measure', 'per second', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'],
    [
      '1. hello-world (Koa HTTPS)',
      `${phases.hello_world.accepted_per_s} req`,
      phases.hello_world.latency_ms.p50,
      phases.hello_world.latency_ms.p99,
      phases.hello_world.non2xx,
      phases.hello_world.errors,
    ],
    [
      '2. /v1/sms/send accepted',
      `${phases.send.accepted_per_s} req`,
      phases.send.latency_ms.p50,
      phases.send.latency_ms.p99,
      phases.send.non2xx,
      phases.send.errors,
    ],
    [
      `3. send-bulk ×${BULK_SIZE}`,
      `${phases.bulk.messages_accepted_per_s} msg (${phases.bulk.accepted_per_s} req)`,
      phases.bulk.latency_ms.p50,
      phases.bulk.latency_ms.p99,
      phases.bulk.non2xx,
      phases.bulk.errors,
    ],
    [
      '4. send-otp accepted',
      `${phases.otp_send.accepted_per_s} req`,
      phases.otp_send.latency_ms.p50,
      phases.otp_send.latency_ms.p99,
      phases.otp_send.non2xx,
      phases.otp_send.errors,
    ],
    [
      '5. verify-otp answered 200',
      `${phases.otp_verify.accepted_per_s} req`,
      phases.otp_verify.latency_ms.p50,
      phases.otp_verify.latency_ms.p99,
      phases.otp_verify.non2xx,
      phases.otp_verify.errors,
    ],
  ];
  say('\n' + formatTable(table));
  say(`\nratio send / hello-world: ${ratio} (goal ≥ ${GOAL_RATIO}: ${ratio >= GOAL_RATIO ? 'met' : 'NOT met'})`);
  for (const [key, p] of Object.entries(phases)) {
    const others = Object.entries(p.status_codes).filter(([code]) => code !== '200');
    if (others.length > 0) say(`  ${key}: other statuses ${others.map(([c, n]) => `${c}×${n}`).join(', ')}`);
  }

  const rssNames = [...new Set([...Object.keys(rssIdle), ...Object.keys(rssAfterBulk)])];
  const mb = (kb) => (kb === undefined ? '-' : (kb / 1024).toFixed(1));
  say(
    '\n' +
      formatTable([
        ['RSS (MB)', 'idle', 'after send', 'after bulk'],
        ...rssNames.map((n) => [
          n,
          mb(rssIdle[n]),
          n === 'hello-world' ? '-' : mb(rssAfterSend[n]),
          n === 'hello-world' ? '-' : mb(rssAfterBulk[n]),
        ]),
      ]),
  );

  const PHASE_KEYS = ['hello_world', 'send', 'bulk', 'otp_send', 'otp_verify'];
  const cpuNames = [...new Set(Object.values(cpu).flatMap((c) => Object.keys(c.cores)))];
  say(
    '\n' +
      formatTable([
        ['CPU (cores, measured phase)', 'hello-world', 'send', 'bulk', 'send-otp', 'verify-otp'],
        ...cpuNames.map((n) => [n, ...PHASE_KEYS.map((k) => cpu[k]?.cores[n] ?? '-')]),
        ['machine busy (all processes)', ...PHASE_KEYS.map((k) => cpu[k]?.machine_busy_cores ?? '-')],
        ['  of which not this run', ...PHASE_KEYS.map((k) => cpu[k]?.other_processes_cores ?? '-')],
      ]),
  );
  say(
    "(Postgres, Redis and NATS are shared instances: the Postgres backends of this run's database are told apart; " +
      'the other Postgres processes, redis-server and nats-server count whatever they do for anyone)',
  );
  // Other programs: their own processes, or work they give the shared Postgres (another database).
  const PG_OTHER = 'postgres (WAL, checkpoints, other databases)';
  const disturbed = Object.entries(cpu)
    .map(([k, c]) => [
      k,
      {
        ...c,
        other_processes_cores: round(
          c.other_processes_cores + (k === 'hello_world' ? c.cores[PG_OTHER] : Math.max(0, c.cores[PG_OTHER] - 0.15)),
          2,
        ),
      },
    ])
    .filter(([, c]) => c.other_processes_cores > 0.2);
  if (disturbed.length > 0) {
    say(
      `WARNING: other programs used CPU during ${disturbed.map(([k, c]) => `${k} (${c.other_processes_cores} cores)`).join(', ')}; ` +
        'on 2 cores that lowers these figures: run again on a quiet machine to compare',
    );
  }
  say(
    `the simulated phone sent ${agentSentDuringRun} SMS during the send and bulk phases (pacing 2-3 s per SMS: the queue keeps what it accepted)`,
  );

  const report = {
    date: new Date().toISOString(),
    machine,
    settings: {
      tool: 'autocannon 8 (programmatic), in the bench process',
      connections: CONNECTIONS,
      pipelining: PIPELINING,
      warmup_s: WARMUP_S,
      duration_s: DURATION_S,
      tls: 'HTTPS with the stack CA passed as tlsOptions.ca (autocannon 8 forces rejectUnauthorized:false, so it is not verified)',
      stack_env: {
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE,
        dispatch_pacing: 'default (2000-3000 ms per SMS per phone)',
        ...EXTRA_STACK_ENV,
      },
      gateways: GATEWAYS,
      experiment:
        Object.keys(EXTRA_STACK_ENV).length > 0 || GATEWAYS > 1
          ? { ...EXTRA_STACK_ENV, ...(GATEWAYS > 1 ? { gateways: GATEWAYS } : {}) }
          : undefined,
      notes: [
        'The rate limiter is not bypassed: RATE_LIMIT_PER_MINUTE is raised so it never refuses, but its Redis sliding-window script runs on every request.',
        'Only 200 responses count as accepted; non-2xx are reported.',
        'send and send-bulk use the live key with X-Device-ID of one device kept online by a simulated phone (android-agent --driver simulator).',
        'hello-world is a bare Koa app over https.createServer with the stack certificate, forked into its own process.',
        'send-otp uses the live key and a new number for every request (the limit of 10 OTPs an hour per number never refuses); verify-otp uses a pool of test-key OTPs (code 123456) made after the send-otp phase, each verified with a wrong code, a wrong code, then the right one (three 200 answers per OTP).',
      ],
      send_body: { to: TO, message: TEXT },
      bulk_recipients_per_request: BULK_SIZE,
    },
    results: {
      hello_world: phases.hello_world,
      send: phases.send,
      bulk: phases.bulk,
      otp_send: phases.otp_send,
      otp_verify: phases.otp_verify,
      ratio_send_over_hello_world: ratio,
      goal_ratio: GOAL_RATIO,
      goal_met: ratio >= GOAL_RATIO,
    },
    rss_kb: { idle: rssIdle, after_send: rssAfterSend, after_bulk: rssAfterBulk },
    cpu_cores_during_measure: cpu,
    agent_sms_sent_during_load: agentSentDuringRun,
    disturbed_by_other_programs: Object.fromEntries(disturbed.map(([k, c]) => [k, c.other_processes_cores])),
    cpu_profiles: CPU_PROF_DIR,
    elapsed_s: round((Date.now() - started) / 1000, 1),
  };
  // A smoke run's figures mean nothing: they never replace the last real run's.
  const file = path.join(RESULTS_DIR, SMOKE ? 'smoke.json' : 'latest.json');
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  say(`\nwritten: ${path.relative(REPO_ROOT, file)}`);
  return report;
}

function formatTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  return [line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

main()
  .then(
    () => 0,
    (err) => {
      say(`\nbenchmark failed: ${err.stack ?? err}`);
      return 1;
    },
  )
  .then(async (code) => {
    say('stopping everything this run started...');
    await cleanupAll();
    if (CPU_PROF_DIR) say(`CPU profiles: ${path.relative(REPO_ROOT, CPU_PROF_DIR)}`);
    process.exit(code);
  });
