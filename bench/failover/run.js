'use strict';
/**
 * `node bench/failover/run.js`: how long the messages queued on a phone that goes away take to go
 * out on the client's other phones.
 *
 *   1. starts the whole system (`@smsgw/stack`, isolated: its own database, NATS and Redis
 *      prefixes), the hub's failover sweep every 500 ms and a pause of 5 to 10 ms between SMS;
 *   2. makes a client whose failover delay is BENCH_DELAY_S (10 s, the shortest allowed), and one
 *      phone limited to one SMS a day: it sends one, then BENCH_MESSAGES (1,000) wait on it,
 *      queued by send-bulk without X-Device-ID (the automatic choice, so they may move);
 *   3. kills that phone (SIGKILL: the hub sees its connection drop) and starts BENCH_PHONES (2)
 *      other phones of the client;
 *   4. for each message, takes the time from the kill to the moment another phone hands it to
 *      its (simulated) radio, read from the phones' --log-json lines; prints p50, p99 and max,
 *      with and without the failover delay, and checks that every message went out exactly once.
 *
 * Needs Postgres, Redis and NATS as for the tests, and a build (`npx turbo run build`).
 */
const { execFile, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const { promisify } = require('node:util');
const { Admin } = require('@smsgw/admin');
const { REPO_ROOT, simulatedPhoneArgs, startStack } = require('@smsgw/stack');
const { request } = require('../lib/http');
const { intEnv } = require('../lib/knobs');
const { liveAuth, waitOnline } = require('../lib/phones');
const { percentile } = require('../lib/stats');
const { sleep } = require('../lib/time');

const MESSAGES = intEnv('BENCH_MESSAGES', 1000, 20);
const PHONES = intEnv('BENCH_PHONES', 2, 1);
const DELAY_S = intEnv('BENCH_DELAY_S', 10, 10, 10);
const run = promisify(execFile);

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);

/** A simulated phone as a process; `onSent(id, at)` for each SMS it hands to its radio. */
function startPhone(stack, client, device, name, extra, onSent) {
  const child = spawn(
    process.execPath,
    simulatedPhoneArgs({
      repoRoot: REPO_ROOT,
      hubUrl: stack.hubUrl,
      caFile: stack.certs.caCertFile,
      clientId: client.client_id,
      devicePassword: device.device_password,
      dataDir: path.join(stack.logDir, `bench-${name}`),
      extra: ['--sim-delivery-delay-ms', '100', ...extra],
    }),
    { stdio: ['ignore', 'pipe', fs.openSync(path.join(stack.logDir, `bench-${name}.log`), 'a')] },
  );
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      onSent(JSON.parse(line).message_id, Date.now());
    } catch {
      // not a --log-json line
    }
  });
  return child;
}

async function main() {
  const stack = await startStack({
    dataDir: path.join(REPO_ROOT, '.stack/bench-failover'),
    isolated: true,
    env: {
      LOG_LEVEL: 'info',
      DISPATCH_INTERVAL_MIN_MS: '5',
      DISPATCH_INTERVAL_MAX_MS: '10',
      DISPATCH_SWEEP_MS: '1000',
      DISPATCH_LEASE_MS: '5000',
      HUB_FAILOVER_SWEEP_MS: '500',
    },
  });
  const credentials = stack.grpcCredentials('admin');
  const admin = new Admin(
    { accountAddress: stack.accountAddress, deviceHubAddress: stack.deviceHubAddress, webhookAddress: stack.webhookAddress },
    credentials,
  );
  const cli = async (...args) => {
    const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'tools/admin/dist/cli.js'), ...args], {
      env: {
        ...process.env,
        ACCOUNT_GRPC_ADDR: stack.accountAddress,
        DEVICE_HUB_GRPC_ADDR: stack.deviceHubAddress,
        WEBHOOK_GRPC_ADDR: stack.webhookAddress,
        GRPC_TLS_CA_FILE: credentials.caFile,
        GRPC_TLS_CERT_FILE: credentials.certFile,
        GRPC_TLS_KEY_FILE: credentials.keyFile,
      },
    });
    return JSON.parse(stdout);
  };
  const phones = [];
  try {
    const client = await admin.createClient(`bench${Date.now()}@example.com`, 'bench-failover');
    await cli('set-fleet', '--client', client.client_id, '--failover-delay', String(DELAY_S));
    const api = async (pathname, body) => {
      const res = await request(`${stack.gatewayUrl}${pathname}`, stack.certs.caPem, {
        method: 'POST',
        headers: { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id },
        body,
      });
      if (res.status !== 200) throw new Error(`${pathname} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    };

    const sentAt = new Map();
    const sentCount = new Map();
    const onSent = (id, at) => {
      sentCount.set(id, (sentCount.get(id) ?? 0) + 1);
      if (!sentAt.has(id)) sentAt.set(id, at);
    };
    const leaving = await admin.createDevice(client.client_id, 'leaving');
    await cli('set-device-limits', '--client', client.client_id, '--device', leaving.device_id, '--per-day', '1');
    const first = startPhone(stack, client, leaving, 'leaving', [], onSent);
    phones.push(first);
    await waitOnline({ gatewayUrl: stack.gatewayUrl, ca: stack.certs.caPem, auth: liveAuth(client), deviceId: leaving.device_id });

    const ids = [];
    for (let i = 0; i < MESSAGES; i += 100) {
      const recipients = Array.from({ length: Math.min(100, MESSAGES - i) }, (_, k) => `+336${String(10_000_000 + i + k)}`);
      const bulk = await api('/v1/sms/send-bulk', { recipients, message: 'failover benchmark' });
      ids.push(...bulk.messages.map((m) => m.message_id));
    }
    // The phone takes its one SMS of the day; the others wait on it.
    await sleep(1000);
    const waiting = ids.filter((id) => !sentAt.has(id));
    log(`${waiting.length} messages wait on the phone that leaves`);

    first.kill('SIGKILL');
    const killedAt = Date.now();
    for (let n = 0; n < PHONES; n++) {
      const device = await admin.createDevice(client.client_id, `staying-${n}`);
      phones.push(startPhone(stack, client, device, `staying-${n}`, [], onSent));
    }
    const deadline = killedAt + DELAY_S * 1000 + 120_000;
    while (Date.now() < deadline && waiting.some((id) => !sentAt.has(id))) await sleep(200);

    const times = waiting.filter((id) => sentAt.has(id)).map((id) => sentAt.get(id) - killedAt);
    times.sort((a, b) => a - b);
    const twice = ids.filter((id) => (sentCount.get(id) ?? 0) > 1).length;
    const missing = waiting.length - times.length;
    const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`failover of ${waiting.length} messages to ${PHONES} phones (failover delay ${DELAY_S} s, sweep every 0.5 s):`);
    console.log(
      `  from the phone going offline: p50 ${fmt(percentile(times, 50))}, p99 ${fmt(percentile(times, 99))}, first ${fmt(times[0])}, last ${fmt(times[times.length - 1])}`,
    );
    console.log(
      `  after the failover delay: p50 ${fmt(percentile(times, 50) - DELAY_S * 1000)}, p99 ${fmt(percentile(times, 99) - DELAY_S * 1000)}`,
    );
    console.log(`missing: ${missing}; sent twice: ${twice}`);
    if (missing > 0 || twice > 0) process.exitCode = 1;
  } finally {
    for (const p of phones) p.kill('SIGTERM');
    admin.close();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
