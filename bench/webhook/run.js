'use strict';
/**
 * `node bench/webhook/run.js`: how many events one webhook replica delivers per second to a fast
 * receiver, and how long after a phone's report the first attempt leaves.
 *
 * Part 1, the webhook service alone (`services/webhook/dist/main.js` on a scratch schema and NATS
 * prefix, one replica):
 *   a. backlog: BENCH_EVENTS (20,000) `sms.delivered` events are published to JetStream before
 *      the service starts, for BENCH_CLIENTS (20) clients with one global endpoint each, all on
 *      one local HTTPS receiver that answers 200 at once; events delivered per second is
 *      BENCH_EVENTS over the time from the service's start to the last arrival;
 *   b. steady rate: BENCH_RATE (500) events a second for BENCH_STEADY_S (10 s) while the service
 *      runs; delay = arrival at the receiver minus publication; p50, p99, max.
 * Part 2, the whole system (`packages/stack`, one simulated phone at its fastest pace):
 *   BENCH_SMS (200) SMS sent with a `webhook_url` in two bulk requests; for each `sms.sent` and
 *   `sms.delivered` the delay = arrival minus the time the phone reported (`sent_at` /
 *   `delivered_at` in the event's data, the phone's clock, on this machine); p50, p99, max.
 *
 * Needs Postgres and NATS (DATABASE_URL, NATS_URL), Redis for part 2, and `make build`.
 */
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const { connectNats, createLogger, createPool, ensureStream, migrate, newId, quoteIdent, streamConfigs } = require('@smsgw/platform');
const { ensureCerts, REPO_ROOT, simulatedPhone, startStack } = require('@smsgw/stack');
const { Admin } = require('@smsgw/admin');
const { intEnv } = require('../lib/knobs');
const { liveAuth, waitOnline } = require('../lib/phones');
const { stats } = require('../lib/stats');
const { sleep } = require('../lib/time');
const { grpcTlsEnv } = require('@smsgw/testing');

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const EVENTS = intEnv('BENCH_EVENTS', 20_000, 100, 0);
const CLIENTS = intEnv('BENCH_CLIENTS', 20, 2, 0);
const RATE = intEnv('BENCH_RATE', 500, 50, 0);
const STEADY_S = intEnv('BENCH_STEADY_S', 10, 1, 0);
const SMS = intEnv('BENCH_SMS', 200, 5, 0);

const log = (...args) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
const fmt = (x) => `n=${x.n} p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms, max ${x.max.toFixed(1)} ms`;

/** A receiver that answers 200 at once and calls `onEvent(body, arrivedAt)`. */
async function startReceiver(certs, onEvent) {
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem, keepAlive: true }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')), at);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) };
}

function startWebhookService(env) {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'services/webhook/dist/main.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 1);
        if (line.includes('"webhook service ready"')) resolve(child);
        else if (line.includes('"level":"error"') || line.includes('"level":"fatal"')) log('service:', line.slice(0, 300));
      }
    });
    child.on('exit', (code) => reject(new Error(`webhook service exited with ${code}`)));
  });
}

async function partOne() {
  const schema = `bench_webhook_${randomBytes(4).toString('hex')}`;
  const prefix = `benchw${randomBytes(3).toString('hex')}`;
  const certs = await ensureCerts(path.join(os.tmpdir(), 'smsgw-bench-webhook-certs'));
  const nats = await connectNats({ url: NATS_URL, prefix, name: 'bench-webhook', log: createLogger('bench', 'silent') });
  const pool = createPool({ url: DATABASE_URL, schema, max: 2 });
  const published = new Map();
  const arrivals = [];
  const receiver = await startReceiver(certs, (body, at) => arrivals.push({ id: body.event_id, at }));
  let child;
  try {
    await ensureStream(nats.jsm, streamConfigs(nats.names).events);
    const clients = Array.from({ length: CLIENTS }, (_, i) => `client_${1700000000000000 + i}`);
    const publish = async (n) => {
      const pending = [];
      for (let i = 0; i < n; i++) {
        const id = newId('evt');
        const client = clients[i % clients.length];
        const at = new Date().toISOString();
        const event = {
          event: 'sms.delivered',
          event_id: id,
          timestamp: at,
          data: {
            message_id: newId('msg'),
            status: 'delivered',
            to: '+33612345678',
            sent_at: at,
            delivered_at: at,
            metadata: { order: i },
          },
          routing: { client_id: client, mode: 'live' },
        };
        published.set(id, Date.now());
        pending.push(nats.js.publish(nats.names.event('sms.delivered'), JSON.stringify(event), { msgID: id }));
        if (pending.length >= 500) await Promise.all(pending.splice(0));
      }
      await Promise.all(pending);
    };

    log(`publishing a backlog of ${EVENTS} events for ${CLIENTS} clients`);
    await publish(EVENTS);
    const env = {
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      NATS_URL,
      NATS_PREFIX: prefix,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      ...grpcTlsEnv('webhook'),
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_EXTRA_CA_FILE: certs.caCertFile,
      ACCOUNT_GRPC_ADDR: '127.0.0.1:1',
      SCHEDULER_GRPC_ADDR: '127.0.0.1:1',
      LOG_LEVEL: 'info',
    };
    // The endpoints exist before the service starts (the service finds the schema migrated and carries on).
    await migrate(pool, { schema, dir: path.join(REPO_ROOT, 'services/webhook/migrations') });
    for (const client of clients) {
      await pool.query(
        `INSERT INTO endpoints (endpoint_id, client_id, mode, url, events, secret) VALUES ($1, $2, 'live', $3, '{sms.delivered}', $4)`,
        [newId('whe'), client, `https://127.0.0.1:${receiver.port}/hooks/${client}`, `whsec_${randomBytes(16).toString('hex')}`],
      );
    }
    const started = Date.now();
    child = await startWebhookService(env);
    while (arrivals.length < EVENTS) {
      if (Date.now() - started > 300_000) throw new Error(`only ${arrivals.length} of ${EVENTS} arrived in 5 minutes`);
      await sleep(20);
    }
    const drainS = (arrivals.at(-1).at - started) / 1000;
    const backlog = { events: EVENTS, seconds: drainS, perSecond: EVENTS / drainS };
    log(`backlog: ${EVENTS} events delivered in ${drainS.toFixed(2)} s (service start included): ${backlog.perSecond.toFixed(0)} events/s`);

    arrivals.length = 0;
    published.clear();
    log(`steady: ${RATE} events/s for ${STEADY_S} s`);
    const steadyStart = Date.now();
    for (let s = 0; s < STEADY_S * 10; s++) {
      await publish(RATE / 10);
      const next = steadyStart + (s + 1) * 100;
      await sleep(Math.max(0, next - Date.now()));
    }
    const total = (RATE / 10) * STEADY_S * 10;
    while (arrivals.length < total && Date.now() - steadyStart < STEADY_S * 1000 + 30_000) await sleep(20);
    const delays = arrivals.map((a) => a.at - published.get(a.id));
    const steady = stats(delays);
    log(`steady: publication to first attempt ${fmt(steady)}`);
    return { backlog, steady };
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    await receiver.close();
    for await (const name of nats.jsm.streams.names()) if (name.startsWith(prefix.toUpperCase())) await nats.jsm.streams.delete(name);
    await nats.nc.drain();
    await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await pool.end();
  }
}

async function partTwo() {
  const dataDir = path.join(REPO_ROOT, '.stack/bench-webhook');
  const stack = await startStack({
    dataDir,
    isolated: true,
    env: { LOG_LEVEL: 'warn', DISPATCH_INTERVAL_MIN_MS: '0', DISPATCH_INTERVAL_MAX_MS: '5', RATE_LIMIT_PER_MINUTE: '100000' },
  });
  const admin = new Admin(
    {
      accountAddress: stack.accountAddress,
      deviceHubAddress: stack.deviceHubAddress,
      webhookAddress: stack.webhookAddress,
    },
    stack.grpcCredentials('admin'),
  );
  const delays = { 'sms.sent': [], 'sms.delivered': [] };
  const receiver = await startReceiver(stack.certs, (body, at) => {
    const t = body.event === 'sms.sent' ? body.data.sent_at : body.data.delivered_at;
    if (delays[body.event]) delays[body.event].push(at - Date.parse(t));
  });
  let agent;
  try {
    const client = await admin.createClient('bench@example.com', 'bench');
    const device = await admin.createDevice(client.client_id, 'bench phone');
    agent = simulatedPhone(
      stack,
      { clientId: client.client_id, devicePassword: device.device_password },
      { repoRoot: REPO_ROOT, extra: ['--sim-delivery-delay-ms', '200'] },
    );
    await agent.start();
    await waitOnline({ gatewayUrl: stack.gatewayUrl, ca: stack.certs.caPem, auth: liveAuth(client), deviceId: device.device_id });
    const webhookUrl = `https://127.0.0.1:${receiver.port}/per-message`;
    for (let sent = 0; sent < SMS; sent += 100) {
      const n = Math.min(100, SMS - sent);
      const body = JSON.stringify({
        recipients: Array.from({ length: n }, (_, i) => `+336${String(12000000 + sent + i)}`),
        message: 'Bench',
        webhook_url: webhookUrl,
      });
      const status = await new Promise((resolve, reject) => {
        const req = https.request(
          `${stack.gatewayUrl}/v1/sms/send-bulk`,
          {
            method: 'POST',
            ca: stack.certs.caPem,
            headers: {
              'Content-Type': 'application/json',
              'X-API-Key': client.live_api_key,
              'X-Client-ID': client.client_id,
              'X-Device-ID': device.device_id,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      if (status !== 200) throw new Error(`send-bulk answered ${status}`);
    }
    const deadline = Date.now() + 180_000;
    while (delays['sms.delivered'].length < SMS && Date.now() < deadline) await sleep(100);
    const sent = stats(delays['sms.sent']);
    const delivered = stats(delays['sms.delivered']);
    log(`report to first attempt, sms.sent: ${fmt(sent)}`);
    log(`report to first attempt, sms.delivered: ${fmt(delivered)}`);
    return { sent, delivered };
  } finally {
    await agent?.stop();
    admin.close();
    await receiver.close();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  log(`${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`);
  const one = await partOne();
  const two = await partTwo();
  console.log(JSON.stringify({ part1: one, part2: two }, null, 2));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
