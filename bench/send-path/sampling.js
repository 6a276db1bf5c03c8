'use strict';
/**
 * Memory and CPU: each process's resident memory at a moment, and the cores each process (or
 * group of processes) used during a measured phase, read from /proc.
 */
const os = require('node:os');
const { clockTicks, cpuTicks, machineTicks, pidsOf, rssKb } = require('../lib/proc');
const { sleep } = require('../lib/time');
const { round } = require('./settings');

const CLK_TCK = clockTicks();

/** @typedef {Record<string, () => number[]>} Groups a label and the pids it counts */
/** @typedef {ReturnType<ReturnType<typeof cpuSampler>['stop']>} CpuReading */

/**
 * CPU used by each process (or group of processes) between start() and stop(), in cores
 * (1.0 = one core busy the whole time).
 * @param {Groups} groups
 */
function cpuSampler(groups) {
  const snapshot = () => {
    /** @type {Record<string, Map<number, number>>} */
    const s = {};
    for (const [label, pids] of Object.entries(groups)) {
      const ticks = new Map();
      s[label] = ticks;
      for (const pid of pids()) {
        const t = pid === process.pid ? undefined : cpuTicks(pid);
        if (t !== undefined) ticks.set(pid, t);
      }
    }
    return s;
  };
  /** @type {Record<string, Map<number, number>>} */
  let before = {};
  let t0 = 0n;
  let m0 = { busy: 0, total: 0 };
  let self0 = process.cpuUsage();
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
      /** @type {Record<string, number>} */
      const cores = {};
      for (const [label, pids] of Object.entries(after)) {
        let ticks = 0;
        for (const [pid, t] of pids) ticks += t - (before[label]?.get(pid) ?? 0);
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

/**
 * The processes whose CPU each phase reads: every service, the phone, the hello-world while it
 * runs, and the shared Postgres (this run's database apart), Redis and NATS.
 * @param {import('./setup').Run} run
 * @param {import('node:child_process').ChildProcess} hello the hello-world's process
 * @returns {Groups}
 */
function processGroups({ stack, agent }, hello) {
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const pid = (/** @type {number | undefined} */ p) => (p === undefined ? [] : [p]);
  return {
    ...Object.fromEntries(
      Object.keys(stack.services).map((name) => [name, () => pid(stack.services[/** @type {keyof typeof stack.services} */ (name)].pid)]),
    ),
    agent: () => pid(agent.child.pid),
    'hello-world': () => (hello.exitCode === null ? pid(hello.pid) : []),
    "postgres (this run's database)": () => pidsOf('postgres', (cmd) => cmd.includes(` ${database} `)),
    'postgres (WAL, checkpoints, other databases)': () => pidsOf('postgres', (cmd) => !cmd.includes(` ${database} `)),
    'redis-server': () => pidsOf('redis-server'),
    'nats-server': () => pidsOf('nats-server'),
  };
}

/**
 * Resident memory (kB) of every service and of `extra` processes, by name.
 * @param {import('./setup').Run} run
 * @param {Record<string, number | undefined>} [extra]
 * @returns {Record<string, number | undefined>}
 */
function rssOf({ stack }, extra = {}) {
  const servicePids = Object.fromEntries(Object.entries(stack.services).map(([name, service]) => [name, service.pid]));
  /** @type {Record<string, number | undefined>} */
  const out = {};
  for (const [name, pid] of Object.entries({ ...servicePids, ...extra })) out[name] = pid ? rssKb(pid) : undefined;
  return out;
}

/**
 * Once everything runs (stack, phone, hello-world) and has settled: the idle memory, and the
 * processes whose CPU each phase will read.
 * @param {import('./setup').Run} run
 * @param {import('node:child_process').ChildProcess} hello the hello-world's process
 * @returns {Promise<import('./load').Results>}
 */
async function startSampling(run, hello) {
  await sleep(2000); // let start-up work settle before the idle reading
  const idle = rssOf(run, { agent: run.agent.child.pid, 'hello-world': hello.pid });
  return { groups: processGroups(run, hello), phases: {}, cpu: {}, rss: { idle }, agentSentBefore: 0, agentSentDuringRun: 0 };
}

module.exports = { cpuSampler, rssOf, startSampling };
