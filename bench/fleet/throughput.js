'use strict';
/**
 * `node bench/fleet/throughput.js`: the whole path under a large account's traffic, and what it
 * costs per SMS.
 *
 * Steady mode (default): BENCH_PHONES (1,000) phones of one client at the hub's default pace
 * (2 to 3 s between two SMS of a phone: about 400 SMS/s for 1,000 phones), and a sender that
 * queues BENCH_RATE (400) SMS a second for BENCH_DURATION_S (600 s) with `send-bulk` (100 a
 * request, no X-Device-ID: the automatic choice) and a `webhook_url` on a local HTTPS receiver
 * (BENCH_WEBHOOKS=0: none, for the path without its webhooks). Beside it, the OTP case: a second
 * client with BENCH_PROBE_PHONES (20) phones that are idle, and one `POST /v1/sms/send` every
 * 200 ms to the next of them; for each, the send request's own time and the time from its answer
 * to the moment the phone got the SMS (it acknowledges at once).
 * Every 10 s: the backlog (queued, untaken), SMS handed to phones, SMS ended, webhooks received,
 * each process's CPU and each service's RSS (every sample is kept in the results file). At the
 * end: p50/p99 of accept → phone, of the send request, and of a phone's report → the webhook's
 * arrival (`sms.delivered`, its `delivered_at` against the arrival; one machine, one clock), the
 * platform's CPU per SMS by process, and the per-SMS account of the window after the warm-up
 * (path-account.js: Postgres statements, rows and WAL, gRPC calls, HTTP requests, NATS messages,
 * Redis commands).
 *
 * Postgres, Redis and NATS are private servers of the run (BENCH_SHARED_INFRA=1: the machine's),
 * so that their CPU and counters are the run's alone: Postgres as durable as the machine's
 * (fsync, synchronous commit) with `pg_stat_statements`, NATS with its monitoring endpoint.
 *
 * Ceiling mode (BENCH_MODE=ceiling): BENCH_BACKLOG (30,000) messages queued first, then the
 * phones connect with no pause between SMS (DISPATCH_INTERVAL_*_MS=0): the claims a second the
 * stack sustains when the phones are not the limit, which is the queue's ceiling.
 *
 * Needs a build.
 */
const fs = require('node:fs');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const pg = require('pg');
const { Admin } = require('@smsgw/admin');
const { REPO_ROOT, startPrivateServer, startStack } = require('@smsgw/stack');
const { intEnv, SMOKE } = require('../lib/knobs');
const { clockTicks, cpuTicks, kernelCounts, machineTicks, pidsOf, rssKb, withChildren } = require('../lib/proc');
const { percentile } = require('../lib/stats');
const { sleep } = require('../lib/time');
const { pool, provision, startFleet } = require('./fleet');
const { PathAccount } = require('./path-account');
const { PostgresRoles } = require('./postgres-roles');

const MODE = process.env.BENCH_MODE === 'ceiling' ? 'ceiling' : 'steady';
// The ceiling needs phones enough to keep claims in flight, not a big fleet (the automatic choice of each send lists them all).
const PHONES = intEnv('BENCH_PHONES', process.env.BENCH_MODE === 'ceiling' ? 200 : 1000, 40);
const RATE = intEnv('BENCH_RATE', 400, 20);
const WEBHOOKS = process.env.BENCH_WEBHOOKS !== '0';
const SHARED_INFRA = process.env.BENCH_SHARED_INFRA === '1';
/** BENCH_CPU_PROF=1: a V8 CPU profile of each service over the steady window, in bench/results/cpu-prof-fleet-<time>/. */
const CPU_PROF_DIR =
  process.env.BENCH_CPU_PROF === '1'
    ? path.join(__dirname, '../results', `cpu-prof-fleet-${new Date().toISOString().replace(/[:.]/g, '-')}`)
    : undefined;
/** The heap each service keeps after its major collections (`heap-preload.js`), in bench/results/heap-fleet-<time>/. */
const HEAP_DIR = path.join(__dirname, '../results', `heap-fleet-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const DURATION_S = intEnv('BENCH_DURATION_S', 600, 6);
/** Environment added to every service, for an experiment (printed and recorded; not comparable with a default run). */
const EXTRA_STACK_ENV = process.env.BENCH_STACK_ENV ? JSON.parse(process.env.BENCH_STACK_ENV) : {};
const PROBE_PHONES = intEnv('BENCH_PROBE_PHONES', 20, 2);
const BACKLOG = intEnv('BENCH_BACKLOG', 30_000, 400);
const SAMPLE_S = SMOKE ? 2 : 10;
const CLK_TCK = clockTicks();
// Every service of the platform: the SMPP and dashboard services read events and answer probes while the fleet runs.
const SERVICES = ['gateway', 'account', 'message', 'device-hub', 'webhook', 'scheduler', 'otp', 'smpp', 'dashboard'];
/** Samples left out of the steady figures at the start: the fleet's first claims, the JIT warming up. */
const WARMUP_SAMPLES = SMOKE ? 1 : 2;

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
function stats(values) {
  const s = Float64Array.from(values).sort();
  if (s.length === 0) return { n: 0 };
  return { n: s.length, p50: Math.round(percentile(s, 50)), p99: Math.round(percentile(s, 99)), max: Math.round(s[s.length - 1]) };
}

/** An HTTPS receiver that answers 200 at once and calls `onEvent(body, arrivedAt)`. */
function startReceiver(certs, onEvent) {
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem, keepAlive: true }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')), at);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

/** One API call; resolves `{ status, body, ms }`. */
function api(stack, agent, pathname, headers, body) {
  const payload = JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${stack.gatewayUrl}${pathname}`,
      { method: 'POST', agent, ca: stack.certs.caPem, headers: { ...headers, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text || '{}'), ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function main() {
  const pace = MODE === 'ceiling' ? { DISPATCH_INTERVAL_MIN_MS: '0', DISPATCH_INTERVAL_MAX_MS: '0' } : {};
  const dataDir = path.join(REPO_ROOT, '.stack/bench-fleet');
  const infraDir = path.join(dataDir, `infra-${process.pid}`);
  const infra = SHARED_INFRA ? undefined : await startInfra(infraDir);
  const stack = await startStack({
    dataDir,
    isolated: true,
    env: {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      ...pace,
      // Node 20 refuses --cpu-prof in NODE_OPTIONS: a preload toggles the profiler on SIGUSR2 (see bench/README.md).
      NODE_OPTIONS: [
        path.join(__dirname, '../heap-preload.js'),
        ...(CPU_PROF_DIR ? [path.join(__dirname, '../cpu-profile-preload.js')] : []),
      ]
        .map((file) => `--require ${file}`)
        .join(' '),
      BENCH_HEAP_DIR: HEAP_DIR,
      ...(CPU_PROF_DIR ? { BENCH_CPU_PROF_DIR: CPU_PROF_DIR } : {}),
      ...EXTRA_STACK_ENV,
    },
    ...(infra ? { infra: { postgresUrl: infra.postgres.url, redisUrl: infra.redis.url, natsUrl: infra.nats.url } } : {}),
  });
  const admin = new Admin(
    { accountAddress: stack.accountAddress, deviceHubAddress: stack.deviceHubAddress, webhookAddress: stack.webhookAddress },
    stack.grpcCredentials('admin'),
  );
  const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
  const postgresRoles = new PostgresRoles(db, SERVICES);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 32 });
  const webhookDelays = [];
  let webhooks = 0;
  const receiver = await startReceiver(stack.certs, (body, at) => {
    webhooks++;
    if (body.event === 'sms.delivered') webhookDelays.push(at - Date.parse(body.data.delivered_at));
  });
  const webhookUrl = `https://127.0.0.1:${receiver.port}/events`;
  const fleets = [];
  const database = new URL(stack.databaseUrl).pathname.slice(1);
  const pidGroups = {
    ...Object.fromEntries(SERVICES.map((name) => [name, () => [stack.services[name].pid]])),
    // A private server counts whole (a Postgres's WAL writer and checkpointer too); a shared one, the run's backends only.
    postgres: () => (infra ? withChildren(infra.postgres.pid) : pidsOf('postgres', (cmd) => cmd.includes(database))),
    redis: () => (infra ? [infra.redis.pid] : pidsOf('redis-server')),
    nats: () => (infra ? [infra.nats.pid] : pidsOf('nats-server')),
    fleet: () => fleets.flatMap((f) => f.children.map((c) => c.pid)),
  };
  const account = infra
    ? await PathAccount.open({
        postgresUrl: infra.postgres.url,
        database,
        natsMonitorUrl: infra.nats.monitorUrl,
        redisUrl: infra.redis.url,
        metricsUrls: stack.metricsUrls,
      })
    : undefined;
  const result = {
    mode: MODE,
    machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    commit: gitCommit(),
    started_at: new Date().toISOString(),
    phones: PHONES,
    rate: RATE,
    webhooks: WEBHOOKS,
    ...(Object.keys(EXTRA_STACK_ENV).length > 0 ? { stack_env: EXTRA_STACK_ENV } : {}),
    samples: [],
  };
  try {
    const client = await admin.createClient(`fleet${Date.now()}@example.com`, 'bench-throughput');
    const auth = { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id };
    const bulk = async (n, offset) => {
      const recipients = Array.from({ length: n }, (_, i) => `+336${String(10_000_000 + ((offset + i) % 89_999_999))}`);
      const res = await api(stack, agent, '/v1/sms/send-bulk', auth, {
        recipients,
        message: 'Throughput bench',
        ...(WEBHOOKS ? { webhook_url: webhookUrl } : {}),
      });
      if (res.status !== 200) throw new Error(`send-bulk answered ${res.status}: ${JSON.stringify(res.body)}`);
    };
    const phones = await provision({ admin, hubUrl: stack.hubUrl, ca: stack.certs.caPem, clientId: client.client_id, count: PHONES });
    if (result.stack_env) log(`EXPERIMENT: every service also has ${JSON.stringify(EXTRA_STACK_ENV)} (not comparable with a default run)`);
    log(`${PHONES} phones provisioned`);
    const fleet = startFleet({ phones, hubUrl: stack.hubUrl, caFile: stack.certs.caCertFile, processes: 1, deliveryDelayMs: 500 });
    fleets.push(fleet);
    const connectedIn = await fleet.waitConnected(PHONES, 300_000);
    log(`${PHONES} phones connected in ${(connectedIn / 1000).toFixed(1)} s`);
    if (MODE === 'ceiling') {
      // Accepting (17,000 a second in bulk) is far faster than claiming: the backlog builds while the phones drain it.
      log(`queueing ${BACKLOG} messages`);
      await pool(Math.ceil(BACKLOG / 100), 4, (i) => bulk(Math.min(100, BACKLOG - i * 100), i * 100));
    }

    // The OTP case: idle phones of another client, one send every 200 ms to the next one.
    const probeClient = await admin.createClient(`probe${Date.now()}@example.com`, 'bench-probe');
    const probePhones = await provision({
      admin,
      hubUrl: stack.hubUrl,
      ca: stack.certs.caPem,
      clientId: probeClient.client_id,
      count: PROBE_PHONES,
    });
    const probes = startFleet({ phones: probePhones, hubUrl: stack.hubUrl, caFile: stack.certs.caCertFile, processes: 1 });
    fleets.push(probes);
    await probes.waitConnected(PROBE_PHONES, 60_000);
    const answeredAt = new Map();
    const toPhone = [];
    probes.onOffered((id, at) => {
      const answered = answeredAt.get(id);
      if (answered !== undefined) {
        toPhone.push(at - answered);
        answeredAt.delete(id);
      }
    });
    const sendTimes = [];

    // Per pid, so that a process that ended (a Postgres backend) takes nothing away and one that started counts from 0.
    const cpu = () =>
      Object.fromEntries(Object.entries(pidGroups).map(([k, pids]) => [k, new Map(pids().map((p) => [p, cpuTicks(p) ?? 0]))]));
    const used = (now, then, k) => [...now[k]].reduce((n, [pid, t]) => n + t - (then[k].get(pid) ?? 0), 0);
    // Postgres's CPU by whom each process works for (a service, `background`, `bench`), in cores.
    const postgresByRole = (now, then, seconds) => {
      const byRole = {};
      for (const [pid, t] of now.postgres) {
        const role = postgresRoles.roleOf(pid);
        byRole[role] = (byRole[role] ?? 0) + t - (then.postgres.get(pid) ?? 0);
      }
      return Object.fromEntries(Object.entries(byRole).map(([role, ticks]) => [role, Number((ticks / CLK_TCK / seconds).toFixed(3))]));
    };
    // The platform's processes' read and write system calls and wakeups, per pid as for the CPU.
    const kernel = () =>
      Object.fromEntries(
        Object.entries(pidGroups)
          .filter(([k]) => k !== 'fleet')
          .map(([k, pids]) => [k, new Map(pids().map((p) => [p, kernelCounts(p) ?? { readsWrites: 0, wakeups: 0 }]))]),
      );
    const kernelPerSms = (then, now, sms) => {
      const per = (k, field) => [...now[k]].reduce((n, [pid, c]) => n + c[field] - (then[k].get(pid)?.[field] ?? 0), 0) / sms;
      const groups = Object.keys(now);
      return {
        // Postgres's sockets use recv and send, which /proc/<pid>/io does not count: its reads and writes are its files'.
        reads_writes_per_sms: Object.fromEntries(
          groups.filter((k) => k !== 'postgres').map((k) => [k, Number(per(k, 'readsWrites').toFixed(2))]),
        ),
        wakeups_per_sms: Object.fromEntries(groups.map((k) => [k, Number(per(k, 'wakeups').toFixed(2))])),
      };
    };
    const backlog = async () =>
      Number(
        (await db.query(`SELECT count(*) AS n FROM message.messages WHERE status = 'queued' AND accepted_at IS NULL AND mode = 'live'`))
          .rows[0].n,
      );
    // Messages whose phone reported their end (delivered or failed): the report path's pace.
    const finals = async () =>
      Number(
        (await db.query(`SELECT count(*) AS n FROM message.messages WHERE status IN ('delivered', 'failed') AND mode = 'live'`)).rows[0].n,
      );
    const started = Date.now();
    const durationMs = MODE === 'ceiling' ? 3_600_000 : DURATION_S * 1000;
    let queued = 0;
    let sendErrors = 0;
    let stopping = false;
    const sender = (async () => {
      if (MODE === 'ceiling') return;
      // Every 125 ms, RATE/8 messages in bulk requests of at most 100.
      for (let tick = 0; !stopping; tick++) {
        const due = started + tick * 125;
        if (Date.now() < due) await sleep(due - Date.now());
        let n = Math.round(((tick + 1) * RATE) / 8) - Math.round((tick * RATE) / 8);
        const batches = [];
        while (n > 0) {
          const size = Math.min(100, n);
          batches.push(bulk(size, queued).catch(() => sendErrors++));
          queued += size;
          n -= size;
        }
        await Promise.all(batches);
      }
    })();
    const probing = (async () => {
      if (MODE === 'ceiling') return;
      for (let i = 0; !stopping; i++) {
        const device = probePhones[i % PROBE_PHONES];
        const res = await api(
          stack,
          agent,
          '/v1/sms/send',
          { 'X-API-Key': probeClient.live_api_key, 'X-Client-ID': probeClient.client_id, 'X-Device-ID': device.device_id },
          { to: '+33612345678', message: 'Votre code : 123456' },
        ).catch(() => undefined);
        if (res?.status === 200) {
          answeredAt.set(res.body.message_id, Date.now());
          sendTimes.push(res.ms);
        }
        await sleep(200);
      }
    })();

    await postgresRoles.start();
    let lastCpu = cpu();
    let lastMachine = machineTicks();
    let lastHanded = 0;
    let lastFinals = 0;
    let stalled = 0;
    let lastWebhooks = 0;
    let lastAt = Date.now();
    let accountStart;
    while (Date.now() - started < durationMs) {
      await sleep(SAMPLE_S * 1000);
      const now = Date.now();
      const seconds = (now - lastAt) / 1000;
      const nowCpu = cpu();
      const machine = machineTicks();
      const handed = fleet.offeredCount;
      const left = await backlog();
      const ended = await finals();
      const sample = {
        t_s: Math.round((now - started) / 1000),
        backlog: left,
        handed_per_s: Math.round((handed - lastHanded) / seconds),
        finals_per_s: Math.round((ended - lastFinals) / seconds),
        webhooks_per_s: Math.round((webhooks - lastWebhooks) / seconds),
        machine_busy_cores: Number(
          (((machine.busy - lastMachine.busy) / (machine.total - lastMachine.total)) * os.cpus().length).toFixed(2),
        ),
        machine_stolen_cores: Number(
          (((machine.steal - lastMachine.steal) / (machine.total - lastMachine.total)) * os.cpus().length).toFixed(2),
        ),
        cores: Object.fromEntries(Object.keys(nowCpu).map((k) => [k, Number((used(nowCpu, lastCpu, k) / CLK_TCK / seconds).toFixed(2))])),
        postgres_by_role: postgresByRole(nowCpu, lastCpu, seconds),
        rss_mb: Object.fromEntries(SERVICES.map((name) => [name, Math.round((rssKb(stack.services[name].pid) ?? 0) / 1024)])),
      };
      result.samples.push(sample);
      if (result.samples.length === WARMUP_SAMPLES) {
        if (account) accountStart = { snapshot: await account.snapshot(), kernel: kernel(), ended: await finals() };
        toggleProfiles(stack);
      }
      log(
        `t=${sample.t_s}s backlog ${left}, handed ${sample.handed_per_s}/s, ended ${sample.finals_per_s}/s, webhooks ${sample.webhooks_per_s}/s, busy ${sample.machine_busy_cores} cores (${sample.machine_stolen_cores} stolen), ` +
          `message ${sample.cores.message}, hub ${sample.cores['device-hub']}, postgres ${sample.cores.postgres}, webhook ${sample.cores.webhook}, ` +
          `nats ${sample.cores.nats}; rss hub ${sample.rss_mb['device-hub']} MB, message ${sample.rss_mb.message} MB`,
      );
      stalled = ended === lastFinals ? stalled + 1 : 0;
      [lastCpu, lastMachine, lastHanded, lastFinals, lastWebhooks, lastAt] = [nowCpu, machine, handed, ended, webhooks, now];
      // The ceiling waits for the reports too: every message ended, or no progress for 3 samples.
      if (MODE === 'ceiling' && left === 0 && (ended >= BACKLOG || stalled >= 3)) break;
    }
    stopping = true;
    postgresRoles.stop();
    toggleProfiles(stack);
    await Promise.all([sender, probing]);
    if (account && accountStart) {
      const ended = await finals();
      result.account = {
        ...account.perSms(accountStart.snapshot, await account.snapshot(), ended - accountStart.ended),
        kernel: kernelPerSms(accountStart.kernel, kernel(), ended - accountStart.ended),
      };
    }
    const elapsedS = (Date.now() - started) / 1000;

    result.queued = MODE === 'ceiling' ? BACKLOG : queued;
    result.send_errors = sendErrors;
    result.handed = fleet.offeredCount;
    result.ended = lastFinals;
    result.ended_per_s = Math.round(lastFinals / elapsedS);
    result.handed_per_s = Math.round(fleet.offeredCount / elapsedS);
    if (MODE === 'ceiling') {
      // From the first SMS a phone got to the last: the connections' own start is not the queue's speed.
      let first = Infinity;
      let last = 0;
      for (const list of fleet.offered.values()) for (const o of list) [first, last] = [Math.min(first, o.at), Math.max(last, o.at)];
      result.handed_per_s = Math.round(fleet.offeredCount / Math.max(0.001, (last - first) / 1000));
    }
    result.sent_twice = fleet.sentTwice().length;
    result.accept_to_phone_ms = stats(toPhone);
    result.send_request_ms = stats(sendTimes);
    result.report_to_webhook_ms = stats(webhookDelays);
    const steady = result.samples.slice(Math.min(WARMUP_SAMPLES, result.samples.length - 1));
    result.backlog_first_last = [steady[0]?.backlog, steady.at(-1)?.backlog];
    result.rss_mb_first_last = Object.fromEntries(SERVICES.map((name) => [name, [steady[0]?.rss_mb[name], steady.at(-1)?.rss_mb[name]]]));
    result.cpu_ms_per_sms = cpuPerSms(steady);
    result.heap_after_major_gc_mb = heapAfterMajorGc(started);
    const heapShown = Object.fromEntries(Object.entries(result.heap_after_major_gc_mb).map(([k, { points: _p, ...v }]) => [k, v]));
    console.log(JSON.stringify({ ...result, samples: undefined, heap_after_major_gc_mb: heapShown }, null, 2));
    const c = result.cpu_ms_per_sms;
    console.log(
      `platform CPU per SMS: ${c.platform} ms (without the webhook service ${c.platform_without_webhook} ms, ` +
        `and without its Postgres connections ${c.platform_without_webhook_work} ms) at ${c.ended_per_s} SMS ended a second; ` +
        Object.entries(c.by_process)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') +
        `; machine ${c.machine_busy_cores} cores busy, of which ${c.machine_stolen_cores} stolen by the host`,
    );
    console.log(
      "Postgres's CPU per SMS by whom it worked for (ms): " +
        Object.entries(c.postgres_by_role)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') +
        " (bench: the benchmark's own queries, not counted in the platform)",
    );
    console.log(
      'heap after major collections, lowest of the first minute -> of the last (collections): ' +
        Object.entries(heapShown)
          .map(([k, v]) => `${k} ${v.first_minute_floor ?? '-'} -> ${v.last_minute_floor ?? '-'} MB (${v.collections})`)
          .join(', '),
    );
    console.log(
      'heap committed, outside the heap (Buffers, native objects) and RSS at the first -> last major collection: ' +
        Object.entries(heapShown)
          .filter(([, v]) => v.external_first_last !== null)
          .map(
            ([k, v]) =>
              `${k} ${v.heap_total_first_last.join(' -> ')}, ${v.external_first_last.join(' -> ')}, ${v.rss_first_last.join(' -> ')} MB`,
          )
          .join(', '),
    );
    if (result.account) {
      const { reads_writes_per_sms: rw, wakeups_per_sms: wake } = result.account.kernel;
      const list = (o) =>
        Object.entries(o)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ');
      console.log(`read and write system calls per SMS: ${list(rw)}; wakeups per SMS: ${list(wake)}`);
    }
    if (MODE === 'ceiling') {
      console.log(
        `ceiling: ${BACKLOG} queued messages handed to ${PHONES} unpaced phones at ${result.handed_per_s}/s; ` +
          `${result.ended} ended (delivered or failed) at ${result.ended_per_s}/s; sent twice: ${result.sent_twice}`,
      );
    } else {
      const a = result.accept_to_phone_ms;
      const s = result.send_request_ms;
      const w = result.report_to_webhook_ms;
      console.log(
        `throughput: ${PHONES} phones, ${RATE}/s offered for ${DURATION_S} s: handed ${result.handed_per_s}/s, backlog ${result.backlog_first_last.join(' -> ')}; ` +
          `accept->phone p50 ${a.p50} ms p99 ${a.p99} ms (send request p99 ${s.p99} ms); report->webhook p50 ${w.p50} ms p99 ${w.p99} ms; sent twice: ${result.sent_twice}`,
      );
    }
    const file = path.join(__dirname, '../results', `fleet-${MODE}${SMOKE ? '-smoke' : ''}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(result, null, 2));
  } finally {
    for (const f of fleets) await f.stop();
    agent.destroy();
    postgresRoles.stop();
    await db.end();
    await account?.close();
    receiver.server.close();
    admin.close();
    await stack.stop();
    if (infra) {
      await Promise.all([infra.postgres.stop(), infra.redis.stop(), infra.nats.stop()]);
      fs.rmSync(infraDir, { recursive: true, force: true });
    }
  }
}

/**
 * Each service's heap after its major collections over the run, from `heap-preload.js`: every
 * one as `[seconds from the start, MB]`, with the first and last minute's lowest (a leak shows as a
 * floor that rises; garbage only raises the peaks).
 */
function heapAfterMajorGc(started) {
  const out = {};
  for (const name of SERVICES) {
    let lines = [];
    try {
      lines = fs
        .readFileSync(path.join(HEAP_DIR, `${name}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
    } catch {
      /* no major collection yet, or the service never started the preload */
    }
    const inRun = lines.filter((l) => l.t >= started);
    const points = inRun.map((l) => [Math.round((l.t - started) / 1000), l.heap_mb]);
    const floor = (from, to) => {
      const inside = points.filter(([t]) => t >= from && t < to).map(([, mb]) => mb);
      return inside.length > 0 ? Math.min(...inside) : null;
    };
    const last = points.at(-1)?.[0] ?? 0;
    // Committed for the heap, outside it, and in all (MB) at the first and the last collection: where RSS goes that the live heap does not explain.
    const ends = (key) => (inRun.length > 0 ? [inRun[0][key] ?? null, inRun.at(-1)[key] ?? null] : null);
    out[name] = {
      collections: points.length,
      first_minute_floor: floor(0, 60),
      last_minute_floor: floor(last - 60, last + 1),
      heap_total_first_last: ends('heap_total_mb'),
      external_first_last: ends('external_mb'),
      rss_first_last: ends('rss_mb'),
      points,
    };
  }
  return out;
}

/** Starts (then stops) each service's CPU profiler, with BENCH_CPU_PROF=1. */
function toggleProfiles(stack) {
  if (!CPU_PROF_DIR) return;
  require('node:fs').mkdirSync(CPU_PROF_DIR, { recursive: true });
  require('node:fs').writeFileSync(path.join(CPU_PROF_DIR, 'current-phase'), 'steady');
  for (const s of Object.values(stack.services)) if (s.pid) process.kill(s.pid, 'SIGUSR2');
}

/**
 * Private Postgres, Redis and NATS for the run. Postgres keeps the durability of a production
 * server (the private instance's defaults trade it for speed) and loads pg_stat_statements.
 */
async function startInfra(dir) {
  const [postgres, redis, nats] = await Promise.all([
    startPrivateServer('postgres', {
      dataDir: dir,
      postgresSettings: {
        fsync: 'on',
        synchronous_commit: 'on',
        full_page_writes: 'on',
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.track': 'all',
        // Planning counted apart: a statement planned at every call shows `plans_per_call` 1.
        'pg_stat_statements.track_planning': 'on',
        max_connections: '200',
        ...Object.fromEntries(
          (process.env.BENCH_PG_SETTINGS ?? '')
            .split(',')
            .filter(Boolean)
            .map((kv) => kv.split('=')),
        ),
      },
    }),
    startPrivateServer('redis', { dataDir: dir }),
    startPrivateServer('nats', { dataDir: dir, natsMonitor: true }),
  ]);
  return { postgres, redis, nats };
}

/** Each platform process's CPU per SMS ended over the steady samples (the phones' simulator left out), in ms. */
function cpuPerSms(samples) {
  const seconds = samples.length;
  if (seconds === 0) return {};
  const avg = (f) => samples.reduce((n, s) => n + f(s), 0) / seconds;
  const ended = avg((s) => s.finals_per_s);
  const perSms = (cores) => (cores / ended) * 1000;
  const roles = [...new Set(samples.flatMap((s) => Object.keys(s.postgres_by_role ?? {})))];
  const postgresByRole = Object.fromEntries(
    roles.map((role) => [role, Number(perSms(avg((s) => s.postgres_by_role?.[role] ?? 0)).toFixed(3))]),
  );
  const processes = Object.keys(samples[0].cores).filter((k) => k !== 'fleet');
  const byProcess = Object.fromEntries(processes.map((k) => [k, Number(perSms(avg((s) => s.cores[k])).toFixed(2))]));
  // The benchmark's own queries (its backlog counts, its account) are not the platform's.
  if (byProcess.postgres !== undefined) byProcess.postgres = Number((byProcess.postgres - (postgresByRole.bench ?? 0)).toFixed(2));
  const platform = Object.values(byProcess).reduce((n, v) => n + v, 0);
  const withoutWebhook = platform - (byProcess.webhook ?? 0);
  return {
    ended_per_s: Math.round(ended),
    platform: Number(platform.toFixed(2)),
    platform_without_webhook: Number(withoutWebhook.toFixed(2)),
    // The webhook service's statements are its work too: its Postgres connections' CPU left out as well.
    platform_without_webhook_work: Number((withoutWebhook - (postgresByRole.webhook ?? 0)).toFixed(2)),
    by_process: byProcess,
    postgres_by_role: postgresByRole,
    simulator: Number(((avg((s) => s.cores.fleet) / ended) * 1000).toFixed(2)),
    machine_busy_cores: Number(avg((s) => s.machine_busy_cores).toFixed(2)),
    machine_stolen_cores: Number(avg((s) => s.machine_stolen_cores).toFixed(2)),
  };
}

function gitCommit() {
  try {
    return require('node:child_process').execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
