'use strict';
/**
 * `node bench/fuzz/run.js`: hostile input at volume, 100,000 requests and frames by default, in
 * three parts, each one of the e2e fuzz files run by jest in e2e/ with its volume knobs:
 *
 *   - agent:     e2e/test/fuzz-agent.test.ts, paired phones' WebSocket frames, pairing and
 *                upgrade requests to the device hub (FUZZ_AGENT_COUNT);
 *   - dashboard: e2e/test/fuzz-dashboard.test.ts, the dashboard's forms (FUZZ_DASHBOARD_COUNT);
 *   - api:       e2e/test/fuzz.test.ts, the public API from its OpenAPI document (FUZZ_COUNT).
 *
 * A part larger than its chunk runs as several jest runs (each a fresh stack, seed + chunk
 * number): fuzz.test.ts gives its one test 240 s. For each part it prints the count, the seeds,
 * the answers by status (summed over its chunks), the duration and the verdict; then the machine's
 * load while it ran, and one verdict line. Exit code 0 only when every part passed.
 *
 * Knobs: BENCH_FUZZ_AGENT (35,000), BENCH_FUZZ_DASHBOARD (5,000), BENCH_FUZZ_API (60,000), 0
 * leaves a part out; BENCH_FUZZ_SEED (random); BENCH_FUZZ_PARTS (agent,dashboard,api).
 * BENCH_SMOKE=1: 200 agent frames and requests, 100 dashboard posts, no API part.
 * Needs Postgres, Redis and NATS as for the tests, and a build (`npx turbo run build`).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { intEnv } = require('../lib/knobs');

const E2E = path.resolve(__dirname, '../../e2e');
const SEED = intEnv('BENCH_FUZZ_SEED', Math.floor(Math.random() * 2 ** 31), Math.floor(Math.random() * 2 ** 31), 0);
// Agent frames are cheap, dashboard forms dear (a sensitive form hashes the password typed): the
// default split gives each part a share it covers in a few minutes on 2 cores.
const PARTS = [
  {
    name: 'agent',
    file: 'test/fuzz-agent.test.ts',
    knob: 'FUZZ_AGENT_COUNT',
    seedKnob: 'FUZZ_AGENT_SEED',
    count: intEnv('BENCH_FUZZ_AGENT', 35_000, 200, 0),
    chunk: 100_000,
  },
  {
    name: 'dashboard',
    file: 'test/fuzz-dashboard.test.ts',
    knob: 'FUZZ_DASHBOARD_COUNT',
    seedKnob: 'FUZZ_DASHBOARD_SEED',
    count: intEnv('BENCH_FUZZ_DASHBOARD', 5_000, 100, 0),
    chunk: 100_000,
  },
  // In a smoke run the API part is left out: fuzz.test.ts checks that its input crossed the rate
  // limit (400 a minute for one client), which takes some 3,400 requests.
  {
    name: 'api',
    file: 'test/fuzz.test.ts',
    knob: 'FUZZ_COUNT',
    seedKnob: 'FUZZ_SEED',
    count: intEnv('BENCH_FUZZ_API', 60_000, 0, 0),
    chunk: 10_000,
  },
].filter((p) => p.count > 0 && (process.env.BENCH_FUZZ_PARTS ?? 'agent,dashboard,api').split(',').includes(p.name));

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);

/** Runs one jest file in e2e/ with `env`; resolves with its exit code and output. */
function jest(file, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [require.resolve('jest/bin/jest', { paths: [E2E] }), file, '--runInBand'], {
      cwd: E2E,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c.toString()));
    child.stderr.on('data', (c) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** The answers by status a fuzz file printed: the lines `  <key>: <n>` under its "fuzz seed <n>: ... in <s> s" line. */
function answersIn(output) {
  const answers = new Map();
  const lines = output.split('\n');
  const start = lines.findIndex((l) => /fuzz seed \d+: .* in [\d.]+ s/.test(l));
  if (start < 0) return answers;
  for (const line of lines.slice(start + 1)) {
    const m = /^\s+(\S.*): (\d+)$/.exec(line);
    if (!m) break;
    answers.set(m[1], Number(m[2]));
  }
  return answers;
}

/** The machine's CPU time (all cores): busy and total jiffies, from /proc/stat. */
function cpuTimes() {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

async function main() {
  const started = Date.now();
  const cpuStart = cpuTimes();
  const loads = [];
  const sampler = setInterval(() => loads.push(os.loadavg()[0]), 5000);
  const results = [];
  log(
    `fuzz: seed ${SEED}, parts ${PARTS.map((p) => `${p.name} ${p.count}`).join(', ')}; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`,
  );
  for (const part of PARTS) {
    const partStarted = Date.now();
    const answers = new Map();
    const seeds = [];
    const failures = [];
    for (let done = 0, chunk = 0; done < part.count; chunk++) {
      const size = Math.min(part.chunk, part.count - done);
      const seed = SEED + chunk;
      seeds.push(seed);
      log(`${part.name}: ${size} (chunk ${chunk + 1}, seed ${seed})`);
      const run = await jest(part.file, { [part.knob]: String(size), [part.seedKnob]: String(seed) });
      const found = answersIn(run.output);
      for (const [key, n] of found) answers.set(key, (answers.get(key) ?? 0) + n);
      // Each chunk's outcome at once, so that a run cut short still tells what it did.
      const reason = run.code === 0 ? '' : `: ${/●[^\n]*\n+\s*([^\n]+)/.exec(run.output)?.[1]?.trim() ?? `exit code ${run.code}`}`;
      log(
        `${part.name} chunk ${chunk + 1}: ${run.code === 0 ? 'pass' : 'FAIL'}${reason}; ${[...found].map(([k, n]) => `${k} ${n}`).join(', ')}`,
      );
      if (run.code !== 0) failures.push(run.output.split('\n').slice(-60).join('\n'));
      done += size;
    }
    const result = {
      name: part.name,
      count: part.count,
      seeds,
      answers,
      seconds: (Date.now() - partStarted) / 1000,
      passed: failures.length === 0,
    };
    results.push(result);
    console.log(
      `\n${part.name}: ${part.count} in ${result.seconds.toFixed(1)} s, seed ${seeds.join(', ')}: ${result.passed ? 'PASS' : 'FAIL'}`,
    );
    for (const [key, n] of [...answers].sort()) console.log(`  ${key}: ${n}`);
    for (const failure of failures) console.log(failure);
  }
  clearInterval(sampler);
  const cpuEnd = cpuTimes();
  const cores = ((cpuEnd.busy - cpuStart.busy) / (cpuEnd.total - cpuStart.total)) * os.cpus().length;
  const total = results.reduce((sum, r) => sum + r.count, 0);
  const seconds = (Date.now() - started) / 1000;
  const meanLoad = loads.length > 0 ? loads.reduce((a, b) => a + b, 0) / loads.length : os.loadavg()[0];
  console.log(
    `\nmachine: ${os.cpus().length} cores, ${cores.toFixed(2)} cores busy on average (everything, this run included), load average 1 min: mean ${meanLoad.toFixed(2)}, max ${Math.max(0, ...loads).toFixed(2)}`,
  );
  const passed = results.every((r) => r.passed);
  console.log(
    `fuzz verdict: ${passed ? 'PASS' : 'FAIL'}: ${total} requests and frames in ${seconds.toFixed(0)} s (${results.map((r) => `${r.name} ${r.count} ${r.passed ? 'pass' : 'FAIL'}`).join(', ')})`,
  );
  process.exitCode = passed ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
