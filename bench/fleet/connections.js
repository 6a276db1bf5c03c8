'use strict';
/**
 * `node bench/fleet/connections.js`: what one hub replica pays for each idle phone, and how fast a
 * fleet comes back after the hub restarts.
 *
 *   1. starts the whole system (`@smsgw/stack`, isolated, LOG_LEVEL=warn) and provisions
 *      BENCH_PHONES (19,500) devices of one client through gRPC, each paired with its code;
 *   2. the yardstick: a bare `ws` server over the same TLS (bare-ws-server.js) holds the fleet's
 *      sockets; its RSS before and after, per phone;
 *   3. the hub holds the same fleet: RSS per phone after BENCH_SETTLE_S (20 s), then CPU of the
 *      hub, Postgres (the run's database), Redis and NATS over BENCH_IDLE_S (60 s) of idle;
 *   4. a graceful restart of the hub (SIGTERM: `reconnect` frames spread over 1 to 11 s), then a
 *      SIGKILL and start: the time until every phone is connected again, and what the phones
 *      saw meanwhile (close codes, refused handshakes by cause, reconnections that resumed their
 *      TLS session: the stack gives every replica the same ticket keys); meanwhile a second hub replica
 *      holds BENCH_OTHER_PHONES (500) phones of its own: how many of them were disconnected;
 *      the CPU each process spent per phone while the fleet connected and came back;
 *   5. the same fleet on a third replica run as behind a TLS-ending ingress (TLS_MODE=proxy, plain
 *      WebSocket): time and CPU per phone to connect, and to come back after a SIGKILL.
 *
 * The fleet is BENCH_FLEET_PROCESSES (2) processes of fleet/phones.js. One process may hold at
 * most `ulimit -n` sockets (20,000 in this container, which root cannot raise), hence 19,500 and
 * not 20,000 phones on one hub by default. Needs Postgres, Redis, NATS and a build.
 */
const { fork } = require('node:child_process');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const { Admin } = require('@smsgw/admin');
const { REPO_ROOT, startStack } = require('@smsgw/stack');
const { intEnv, SMOKE } = require('../lib/knobs');
const { clockTicks, cpuTicks, pidsOf, rssKb } = require('../lib/proc');
const { sleep } = require('../lib/time');
const { provision, rpcCalls, startFleet } = require('./fleet');

const PHONES = intEnv('BENCH_PHONES', 19_500, 50);
const PROCESSES = intEnv('BENCH_FLEET_PROCESSES', 2, 1);
const SETTLE_S = intEnv('BENCH_SETTLE_S', 20, 2);
const IDLE_S = intEnv('BENCH_IDLE_S', 60, 3);
const OTHER_PHONES = intEnv('BENCH_OTHER_PHONES', 500, 10);
const TRICKLE_S = intEnv('BENCH_TRICKLE_S', 20, 2);
const CLK_TCK = clockTicks();

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
const mb = (kb) => (kb / 1024).toFixed(1);

/**
 * CPU used by each group of pids while `run()` runs: `{ seconds, cpu_s: {group: seconds of CPU} }`.
 * A process that started meanwhile counts from 0; one that ended is left out (its CPU is lost).
 */
async function cpuDuring(groups, run) {
  const snap = () => Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, new Map(pids().map((p) => [p, cpuTicks(p) ?? 0]))]));
  const before = snap();
  const t0 = Date.now();
  await run();
  const after = snap();
  const used = (k) => [...after[k]].reduce((n, [pid, t]) => n + t - (before[k].get(pid) ?? 0), 0);
  return { seconds: (Date.now() - t0) / 1000, cpu_s: Object.fromEntries(Object.keys(groups).map((k) => [k, used(k) / CLK_TCK])) };
}

/** Cores used by each group of pids during `seconds` (1.0 = one core busy the whole time). */
async function cpuOver(seconds, groups) {
  const { seconds: elapsed, cpu_s } = await cpuDuring(groups, () => sleep(seconds * 1000));
  return Object.fromEntries(Object.entries(cpu_s).map(([k, v]) => [k, Number((v / elapsed).toFixed(3))]));
}

/** Cores busy on the whole machine while a cpuDuring() measure ran (all groups together). */
function coresBusy({ seconds, cpu_s }) {
  return Number((Object.values(cpu_s).reduce((a, b) => a + b, 0) / seconds).toFixed(2));
}

/**
 * Stops `hub` with `signal`, starts it again and waits until all `phones` of `fleet` are connected;
 * each time in seconds from the stop, with the CPU every group spent meanwhile (the stopped hub's
 * is left out: its process is gone; the new one's counts from its start) and the claims per phone
 * the message service answered (`claimsNow()`: its ClaimNext count).
 */
async function restartAndWait(hub, signal, fleet, phones, groups, claimsNow) {
  const since = Date.now();
  const claimsBefore = await claimsNow();
  const seconds = () => ((Date.now() - since) / 1000).toFixed(1);
  const times = {};
  const cpu = await cpuDuring(groups, async () => {
    await hub.stop(signal);
    times.stopped_s = seconds();
    // A replica starting under a storm of reconnecting phones may answer its probe late: the
    // time it took is what is measured, not a 30 s limit.
    await hub.start(180_000);
    times.ready_s = seconds();
    // Wait for the drop to be seen before waiting for everyone back.
    while (fleet.connected >= phones && Date.now() - since < 5000) await sleep(100);
    times.all_back_s = ((await fleet.waitConnected(phones, 300_000, since)) / 1000).toFixed(1);
  });
  const claims_per_phone = Number((((await claimsNow()) - claimsBefore) / phones).toFixed(2));
  return { ...times, claims_per_phone, cpu_ms_per_phone: msPerPhone(cpu.cpu_s, phones), machine_cores_busy: coresBusy(cpu) };
}

/** Milliseconds of CPU per phone, by group, and their sum. */
function msPerPhone(cpu_s, phones) {
  const per = Object.fromEntries(Object.entries(cpu_s).map(([k, v]) => [k, Number(((v / phones) * 1000).toFixed(2))]));
  return {
    ...per,
    total: Number(
      Object.values(per)
        .reduce((a, b) => a + b, 0)
        .toFixed(2),
    ),
  };
}

function startBare(certs) {
  const child = fork(path.join(__dirname, 'bare-ws-server.js'), [], {
    env: { ...process.env, BARE_SETTINGS: JSON.stringify({ certFile: certs.certFile, keyFile: certs.keyFile }) },
  });
  return new Promise((resolve) => child.once('message', (msg) => resolve({ child, url: `https://127.0.0.1:${msg.port}` })));
}

/** One `POST /v1/sms/send` of the client (automatic choice of phone); resolves its status. */
function apiSend(stack, client, body) {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${stack.gatewayUrl}/v1/sms/send`,
      {
        method: 'POST',
        ca: stack.certs.caPem,
        headers: { 'content-type': 'application/json', 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Connects the fleet to `hubUrl`, waits for every phone, lets it settle; returns the fleet and the time to connect. */
async function connect(phones, hubUrl, caFile) {
  const fleet = startFleet({ phones, hubUrl, caFile, processes: PROCESSES, connectConcurrency: 100 });
  const took = await fleet.waitConnected(phones.length, 600_000);
  return { fleet, took };
}

async function main() {
  const stack = await startStack({
    dataDir: path.join(REPO_ROOT, '.stack/bench-fleet'),
    isolated: true,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000000' },
  });
  const hub = stack.services['device-hub'];
  const admin = new Admin(
    { accountAddress: stack.accountAddress, deviceHubAddress: stack.deviceHubAddress, webhookAddress: stack.webhookAddress },
    stack.grpcCredentials('admin'),
  );
  const results = { phones: PHONES, machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB` };
  let fleet;
  let otherFleet;
  try {
    const client = await admin.createClient(`fleet${Date.now()}@example.com`, 'bench-fleet');
    const t0 = Date.now();
    const phones = await provision({
      admin,
      hubUrl: stack.hubUrl,
      ca: stack.certs.caPem,
      clientId: client.client_id,
      count: PHONES,
      log: (n) => log(`${n} phones provisioned`),
    });
    results.provision_per_s = Math.round(PHONES / ((Date.now() - t0) / 1000));
    const otherPhones = await provision({
      admin,
      hubUrl: stack.hubUrl,
      ca: stack.certs.caPem,
      clientId: client.client_id,
      count: OTHER_PHONES,
    });
    log(`${PHONES} phones provisioned (${results.provision_per_s}/s)`);

    // The yardstick: the same sockets on a bare ws server.
    const bare = await startBare(stack.certs);
    await sleep(1000);
    const bareBefore = rssKb(bare.child.pid);
    ({ fleet } = await connect(phones, bare.url, stack.certs.caCertFile));
    await sleep(SETTLE_S * 1000);
    const bareAfter = rssKb(bare.child.pid);
    results.bare = {
      rss_before_mb: mb(bareBefore),
      rss_after_mb: mb(bareAfter),
      kb_per_phone: ((bareAfter - bareBefore) / PHONES).toFixed(1),
    };
    results.fleet_rss_mb = mb(fleet.rssBytes / 1024);
    await fleet.stop();
    bare.child.kill();
    log(`bare ws: ${results.bare.kb_per_phone} kB per phone`);

    // The hub, the same fleet; what each process spends on a phone's connection.
    await sleep(2000);
    const database = new URL(stack.databaseUrl).pathname.slice(1);
    const services = ['gateway', 'account', 'otp', 'scheduler', 'dashboard'];
    let measuredHub = hub;
    const groups = {
      'device-hub': () => [measuredHub.pid],
      message: () => [stack.services.message.pid],
      webhook: () => [stack.services.webhook.pid],
      'other services': () => services.map((name) => stack.services[name]?.pid).filter(Boolean),
      postgres: () => pidsOf('postgres', (cmd) => cmd.includes(database)),
      redis: () => pidsOf('redis-server'),
      nats: () => pidsOf('nats-server'),
      fleet: () => fleet?.children.map((c) => c.pid) ?? [],
    };
    const hubBefore = rssKb(hub.pid);
    let took;
    const connectCpu = await cpuDuring(groups, async () => {
      ({ fleet, took } = await connect(phones, stack.hubUrl, stack.certs.caCertFile));
    });
    results.hub_connect_all_s = (took / 1000).toFixed(1);
    results.connect_cpu_ms_per_phone = msPerPhone(connectCpu.cpu_s, PHONES);
    log(
      `hub: ${PHONES} phones connected in ${results.hub_connect_all_s} s; CPU ms per phone: ${JSON.stringify(results.connect_cpu_ms_per_phone)}`,
    );
    await sleep(SETTLE_S * 1000);
    const hubAfter = rssKb(hub.pid);
    results.hub = { rss_before_mb: mb(hubBefore), rss_after_mb: mb(hubAfter), kb_per_phone: ((hubAfter - hubBefore) / PHONES).toFixed(1) };
    results.ratio_hub_to_bare = ((hubAfter - hubBefore) / (bareAfter - bareBefore)).toFixed(2);
    log(`hub: ${results.hub.kb_per_phone} kB per phone (${results.ratio_hub_to_bare} × bare ws)`);

    /** ClaimNext calls the message service answered so far. */
    const claimsNow = () => rpcCalls(stack.metricsUrls.message, 'ClaimNext');
    const claimsBeforeIdle = await claimsNow();
    results.idle_cores = await cpuOver(IDLE_S, groups);
    log(`idle over ${IDLE_S} s, cores: ${JSON.stringify(results.idle_cores)}`);
    const claimsAfterIdle = await claimsNow();
    results.idle_claims_per_s = Number(((claimsAfterIdle - claimsBeforeIdle) / IDLE_S).toFixed(1));

    // A trickle of sends to the idle fleet (automatic choice): what each one costs in claims.
    const trickle = TRICKLE_S * 10;
    const handedBefore = fleet.offeredCount;
    const statuses = {};
    const sendTimes = [];
    for (let i = 0; i < trickle; i++) {
      const t = Date.now();
      const res = await apiSend(stack, client, { to: `+3361${String(2000000 + i)}`, message: 'trickle' }).catch(() => 0);
      sendTimes.push(Date.now() - t);
      statuses[res] = (statuses[res] ?? 0) + 1;
      await sleep(100);
    }
    await sleep(5000);
    const claimsAfterTrickle = await claimsNow();
    sendTimes.sort((a, b) => a - b);
    results.trickle = {
      sms: trickle,
      answers: statuses,
      send_ms_p50_max: [sendTimes[Math.floor(sendTimes.length / 2)], sendTimes.at(-1)],
      handed: fleet.offeredCount - handedBefore,
      claim_calls_per_sms: Number(
        ((claimsAfterTrickle - claimsAfterIdle - (TRICKLE_S + 5) * results.idle_claims_per_s) / trickle).toFixed(1),
      ),
    };
    log(`trickle of ${trickle} sends over ${TRICKLE_S} s: ${JSON.stringify(results.trickle)}`);

    // Restarts of this replica, graceful (reconnect frames) then a crash, while another holds phones of its own.
    const other = await stack.addDeviceHub();
    otherFleet = startFleet({ phones: otherPhones, hubUrl: other.hubUrl, caFile: stack.certs.caCertFile, processes: 1 });
    await otherFleet.waitConnected(OTHER_PHONES, 120_000);
    // A smoke run restarts it once, gracefully: the crash costs the same code path up to the phones' backoff.
    for (const kind of SMOKE ? ['SIGTERM'] : ['SIGTERM', 'SIGKILL']) {
      const otherClosesBefore = Object.values(otherFleet.closeCodes).reduce((a, b) => a + b, 0);
      const closesBefore = { ...fleet.closeCodes };
      const errorsBefore = { ...fleet.connectErrors };
      const reconnectionsBefore = fleet.reconnections;
      const resumedBefore = fleet.resumed;
      const restart = await restartAndWait(hub, kind, fleet, PHONES, groups, claimsNow);
      const diff = (now, then) =>
        Object.fromEntries(
          Object.entries(now)
            .map(([k, v]) => [k, v - (then[k] ?? 0)])
            .filter(([, v]) => v > 0),
        );
      results[`restart_${kind}`] = {
        hub_stopped_s: restart.stopped_s,
        hub_ready_s: restart.ready_s,
        all_back_s: restart.all_back_s,
        claims_per_phone: restart.claims_per_phone,
        cpu_ms_per_phone: restart.cpu_ms_per_phone,
        machine_cores_busy: restart.machine_cores_busy,
        // Reconnections that resumed their TLS session (every replica has the stack's ticket keys).
        reconnections: fleet.reconnections - reconnectionsBefore,
        resumed: fleet.resumed - resumedBefore,
        close_codes: diff(fleet.closeCodes, closesBefore),
        refused: diff(fleet.connectErrors, errorsBefore),
        other_replica_disconnected: Object.values(otherFleet.closeCodes).reduce((a, b) => a + b, 0) - otherClosesBefore,
      };
      log(
        `hub ${kind}: ready after ${restart.ready_s} s, all ${PHONES} phones back after ${restart.all_back_s} s` +
          ` (${results[`restart_${kind}`].resumed} of ${results[`restart_${kind}`].reconnections} reconnections resumed TLS)`,
      );
      await sleep(SMOKE ? 500 : 5000);
    }
    results.hub_rss_end_mb = mb(rssKb(hub.pid));

    // The same fleet on a replica behind a TLS-ending ingress (the chart's default, TLS_MODE=proxy):
    // plain WebSocket to the hub, as from the ingress. The ingress's own TLS work is not measured.
    await fleet.stop();
    fleet = undefined;
    const plain = await stack.addDeviceHub({ tlsMode: 'proxy' });
    measuredHub = plain.process;
    const plainConnect = await cpuDuring(groups, async () => {
      ({ fleet, took } = await connect(phones, plain.hubUrl, stack.certs.caCertFile));
    });
    const plainCrash = await restartAndWait(plain.process, 'SIGKILL', fleet, PHONES, groups, claimsNow);
    results.behind_ingress = {
      connect_all_s: (took / 1000).toFixed(1),
      connect_cpu_ms_per_phone: msPerPhone(plainConnect.cpu_s, PHONES),
      crash_all_back_s: plainCrash.all_back_s,
      crash_claims_per_phone: plainCrash.claims_per_phone,
      crash_cpu_ms_per_phone: plainCrash.cpu_ms_per_phone,
      crash_machine_cores_busy: plainCrash.machine_cores_busy,
    };
    log(`behind an ingress: ${JSON.stringify(results.behind_ingress)}`);
    console.log(JSON.stringify(results, null, 2));
    const ratio = Number(results.ratio_hub_to_bare);
    const crash = results.restart_SIGKILL ?? { all_back_s: '(not run)', other_replica_disconnected: 0 };
    console.log(
      `connections: ${PHONES} idle phones, hub ${results.hub.kb_per_phone} kB/phone, bare ws ${results.bare.kb_per_phone} kB/phone, ratio ${results.ratio_hub_to_bare}` +
        ` (goal ≤ 1.5: ${ratio <= 1.5 ? 'met' : 'missed'}); back after a graceful restart ${results.restart_SIGTERM.all_back_s} s` +
        ` (TLS sessions resumed: ${results.restart_SIGTERM.resumed} of ${results.restart_SIGTERM.reconnections}),` +
        ` after a crash ${crash.all_back_s} s (goal < 60 s), after a crash behind an ingress ${results.behind_ingress.crash_all_back_s} s;` +
        ` phones of the other replica disconnected: ` +
        `${results.restart_SIGTERM.other_replica_disconnected + crash.other_replica_disconnected}`,
    );
  } finally {
    await fleet?.stop();
    await otherFleet?.stop();
    admin.close();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
