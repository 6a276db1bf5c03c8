'use strict';
/**
 * `node bench/scheduler/run.js`: how late timers fire with 100,000 pending, and what an idle
 * scheduler costs.
 *
 *   1. starts the real scheduler (`node services/scheduler/dist/main.js`) on a scratch schema and
 *      NATS prefix, periodic jobs off;
 *   2. creates BENCH_FAR (95,000) timers due 1 to 30 days ahead through CreateTimer (64 calls at
 *      a time), then BENCH_DUE (4,000) due at random instants spread over the next BENCH_WINDOW_S
 *      (60 s, starting 10 s out) and BENCH_BURST (1,000) all due at one instant 40 s out: 100,000
 *      pending in all when the first one is due;
 *   3. receives every fire on core NATS and takes lateness = arrival minus fire_at; prints p50,
 *      p99 and max for the spread timers and for the burst, and the scheduler's CPU during the
 *      window;
 *   4. then measures the scheduler's CPU (utime + stime from /proc) over BENCH_IDLE_S (30 s) with
 *      the 95,000 far timers still pending and nothing due;
 *   5. stops the scheduler, deletes its stream, drops the schema.
 *
 * Needs Postgres and NATS as for the tests (DATABASE_URL, NATS_URL) and a build
 * (`npx turbo run build --filter=@smsgw/scheduler`).
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { connectNats, createLogger, createPool, quoteIdent } = require('@smsgw/platform');
const { schedulerProto } = require('@smsgw/proto');
const { clientOfAllowedCallers, grpcTlsEnv } = require('@smsgw/testing');
const { intEnv } = require('../lib/knobs');
const { percentile } = require('../lib/stats');
const { sleep } = require('../lib/time');

const REPO_ROOT = path.resolve(__dirname, '../..');
const SERVICE_MAIN = path.join(REPO_ROOT, 'services/scheduler/dist/main.js');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const FAR = intEnv('BENCH_FAR', 95_000, 200, 0);
const DUE = intEnv('BENCH_DUE', 4_000, 40, 0);
const BURST = intEnv('BENCH_BURST', 1_000, 20, 0);
const WINDOW_S = intEnv('BENCH_WINDOW_S', 60, 2, 0);
const IDLE_S = intEnv('BENCH_IDLE_S', 30, 1, 0);
const CONCURRENCY = 64;
const DAY_MS = 86_400_000;

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
/** CPU seconds (user + system) the process has used, from /proc. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

async function createAll(client, timers) {
  let next = 0;
  const worker = async () => {
    while (next < timers.length) {
      const t = timers[next++];
      await client.createTimer(t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function main() {
  const schema = `bench_sched_${randomBytes(4).toString('hex')}`;
  const prefix = `b${randomBytes(4).toString('hex')}`;
  const silent = createLogger('bench', 'silent');
  const nats = await connectNats({ url: NATS_URL, prefix, name: 'bench-scheduler', log: silent });
  const pool = createPool({ url: DATABASE_URL, schema, max: 2 });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const logFile = path.join(os.tmpdir(), `${schema}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [SERVICE_MAIN], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      NATS_URL,
      NATS_PREFIX: prefix,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(port),
      ...grpcTlsEnv('scheduler'),
      PERIODIC_JOBS: 'false',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', out, out],
  });
  // Timers are made as the message service makes them; the jobs are listed as the admin tool lists them.
  const client = clientOfAllowedCallers(
    schedulerProto().SchedulerService,
    `127.0.0.1:${port}`,
    { CreateTimer: ['message'], CancelTimer: ['message'], ListJobs: ['admin'] },
    { deadlineMs: 30_000 },
  );
  try {
    for (let i = 0; ; i++) {
      try {
        await client.listJobs({}, { deadlineMs: 1000 });
        break;
      } catch (err) {
        if (i > 100) throw err;
        await sleep(200);
      }
    }
    log(`scheduler pid ${child.pid} on :${port}, schema ${schema}; log ${logFile}`);
    const subject = nats.names.timer('bench.due');
    const farSubject = nats.names.timer('bench.far');

    let started = Date.now();
    const far = Array.from({ length: FAR }, (_, i) => ({
      key: `far-${i}`,
      fireAt: new Date(Date.now() + DAY_MS + Math.random() * 29 * DAY_MS).toISOString(),
      subject: farSubject,
      payload: Buffer.alloc(0),
    }));
    await createAll(client, far);
    log(
      `${FAR} far timers created in ${((Date.now() - started) / 1000).toFixed(1)} s (${Math.round(FAR / ((Date.now() - started) / 1000))}/s)`,
    );

    const arrivals = [];
    const sub = nats.nc.subscribe(subject, {
      callback: (_err, msg) => {
        const at = Date.now();
        const body = JSON.parse(msg.string());
        arrivals.push({ late: at - body.fire_at, burst: body.burst });
      },
    });
    const t0 = Date.now() + 10_000;
    // Half-way through the window (40 s from now in a full run), so that the wait below covers it.
    const burstAt = t0 + (WINDOW_S * 1000) / 2;
    const due = [
      ...Array.from({ length: DUE }, (_, i) => ({ i, at: Math.round(t0 + Math.random() * WINDOW_S * 1000), burst: false })),
      ...Array.from({ length: BURST }, (_, i) => ({ i: DUE + i, at: burstAt, burst: true })),
    ].map(({ i, at, burst }) => ({
      key: `due-${i}`,
      fireAt: new Date(at).toISOString(),
      subject,
      payload: Buffer.from(JSON.stringify({ fire_at: at, burst })),
    }));
    started = Date.now();
    await createAll(client, due);
    log(
      `${due.length} due timers created in ${((Date.now() - started) / 1000).toFixed(1)} s; first due in ${((t0 - Date.now()) / 1000).toFixed(1)} s`,
    );
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM timers WHERE state = 'pending'`);
    log(`${rows[0].n} timers pending`);

    const cpuStart = cpuSeconds(child.pid);
    const windowStart = Date.now();
    const end = t0 + WINDOW_S * 1000 + 5000;
    while (Date.now() < end && arrivals.length < due.length) await sleep(200);
    await sleep(1000);
    const windowCpu = cpuSeconds(child.pid) - cpuStart;
    const windowS = (Date.now() - windowStart) / 1000;
    sub.unsubscribe();

    const report = (label, xs) => {
      const sorted = xs.map((a) => a.late).sort((a, b) => a - b);
      return `${label}: ${sorted.length} fired, lateness p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted[sorted.length - 1]} ms, min ${sorted[0]} ms`;
    };
    const missing = due.length - arrivals.length;
    console.log(`pending at start: ${rows[0].n} timers`);
    console.log(
      report(
        `spread over ${WINDOW_S} s`,
        arrivals.filter((a) => !a.burst),
      ),
    );
    console.log(
      report(
        'burst at one instant',
        arrivals.filter((a) => a.burst),
      ),
    );
    console.log(report('all due during the run', arrivals));
    console.log(
      `missing: ${missing}; scheduler CPU during the window: ${windowCpu.toFixed(2)} s over ${windowS.toFixed(0)} s (${((100 * windowCpu) / windowS).toFixed(2)} % of a core)`,
    );

    const idleStart = cpuSeconds(child.pid);
    await sleep(IDLE_S * 1000);
    const idleCpu = cpuSeconds(child.pid) - idleStart;
    console.log(
      `idle with ${FAR} pending: ${idleCpu.toFixed(2)} s CPU over ${IDLE_S} s (${((100 * idleCpu) / IDLE_S).toFixed(3)} % of a core)`,
    );
  } finally {
    client.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await nats.jsm.streams.delete(nats.names.timersStream).catch(() => undefined);
    await nats.nc.drain();
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
