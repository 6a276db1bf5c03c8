'use strict';
/**
 * `node bench/faults/run.js`: BENCH_MESSAGES (10,000) messages sent at a steady rate while, one at
 * a time, every service is SIGKILLed, NATS, Postgres and Redis are restarted and a phone is
 * SIGKILLed; checks that every accepted message ends in a final state, that no SMS is handed to a
 * phone twice and that every event reaches the webhook with one event_id, and reports per fault
 * what was delayed and for how long (bench/faults/README.md says what each figure means).
 *
 *   1. Postgres, NATS and Redis of the run's own (so that they can be restarted), the whole stack
 *      on them (`startStack({ isolated: true, infra })`), one client with a webhook endpoint on a
 *      local HTTPS receiver, BENCH_PHONES (4) simulated phones (`--log-json`, 5 to 10 ms pacing);
 *   2. a sender: BENCH_RATE (20) messages a second through the public API, send and send-bulk
 *      mixed, each request with an Idempotency-Key and retried with it on a network error, 409,
 *      429 or 5xx, so that a retry never makes two messages;
 *   3. the faults, each after a pause of BENCH_PAUSE_S (20 s); BENCH_FAULTS names a subset;
 *   4. waits (bounded) for every accepted message to be final and for its events, then prints a
 *      table per fault and the verdict line; exit code 1 when anything was lost or doubled.
 *
 * Needs the binaries of Postgres, Redis and NATS (the stack's private servers) and a build
 * (`npx turbo run build`).
 */
const { execFileSync, spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const pg = require('pg');
const { Admin } = require('@smsgw/admin');
const { freePort, REPO_ROOT, simulatedPhoneArgs, startPrivateServer, startStack } = require('@smsgw/stack');
const { request } = require('../lib/http');
const { intEnv, SMOKE } = require('../lib/knobs');
const { waitOnline } = require('../lib/phones');
const { sleep } = require('../lib/time');

const MESSAGES = intEnv('BENCH_MESSAGES', 10_000, 300);
const PHONES = intEnv('BENCH_PHONES', 4, 2);
const RATE = intEnv('BENCH_RATE', 20, 10);
const PAUSE_S = intEnv('BENCH_PAUSE_S', 20, 3);
const OUTAGE_MS = intEnv('BENCH_OUTAGE_MS', 3000, 1000, 0);
// The wait for final states ends when none became final for this long (a backlog still draining
// is waited for), and after 20 minutes in any case.
const FINAL_WAIT_S = intEnv('BENCH_FINAL_WAIT_S', 90, 60);
const FINAL_WAIT_MAX_MS = 1_200_000;
// A webhook attempt that failed is tried again a minute later: the events get more than that.
const EVENT_WAIT_S = intEnv('BENCH_EVENT_WAIT_S', 150, 75);
const BULK = intEnv('BENCH_BULK', 10, 5);
const SERVICES = ['gateway', 'account', 'message', 'device-hub', 'otp', 'scheduler', 'webhook', 'dashboard'];
const ALL_FAULTS = [...SERVICES, 'nats', 'postgres', 'redis', 'phone'];
const FAULTS = (process.env.BENCH_FAULTS || (SMOKE ? 'message,redis,phone' : ALL_FAULTS.join(',')))
  .split(',')
  .map((f) => f.trim())
  .filter(Boolean);
for (const f of FAULTS) if (!ALL_FAULTS.includes(f)) throw new Error(`BENCH_FAULTS: unknown fault ${f} (one of ${ALL_FAULTS.join(', ')})`);
const FINAL = new Set(['delivered', 'failed', 'cancelled']);
// A request is given up after this long: its messages count as refused, not accepted.
const GIVE_UP_MS = 180_000;

const started = Date.now();
const log = (...args) => console.error(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...args);
/**
 * A Postgres of the run's own, restartable on the same port (startPrivateServer serves Redis and
 * NATS only). As root, initdb and postgres run as the postgres user.
 */
async function startPrivatePostgres(dir) {
  const versions = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort((a, b) => b - a) : [];
  const binDir = versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((d) => fs.existsSync(`${d}/postgres`));
  if (!binDir) throw new Error('no Postgres in /usr/lib/postgresql/*/bin');
  const asUser =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
  const dataDir = path.join(dir, 'postgres');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (asUser.uid !== undefined) fs.chownSync(dataDir, asUser.uid, asUser.gid);
  execFileSync(`${binDir}/initdb`, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], { ...asUser, stdio: 'ignore' });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const logFile = path.join(dir, 'postgres.log');
  let child;
  const server = {
    url,
    async start() {
      if (child && child.exitCode === null && child.signalCode === null) return;
      const out = fs.openSync(logFile, 'a');
      child = spawn(
        `${binDir}/postgres`,
        ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'].concat([
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
        ]),
        { ...asUser, stdio: ['ignore', out, out] },
      );
      fs.closeSync(out);
      for (let i = 0; i < 300; i++) {
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
        client.on('error', () => undefined);
        try {
          await client.connect();
          await client.query('SELECT 1');
          await client.end();
          return;
        } catch {
          await client.end().catch(() => undefined);
          await sleep(100);
        }
      }
      throw new Error(`Postgres did not start (see ${logFile})`);
    },
    async stop() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      // SIGINT: a fast shutdown that disconnects every client.
      child.kill('SIGINT');
      await exited;
    },
  };
  await server.start();
  return server;
}

/** A local HTTPS receiver for the client's webhook endpoint: answers 200 at once and records every delivery. */
async function startReceiver(certs, deliveries) {
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem, keepAlive: true }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        deliveries.push({ eventId: body.event_id, type: body.event, messageId: body.data?.message_id, status: body.data?.status, at });
      } catch {
        deliveries.push({ eventId: undefined, type: 'unreadable', at });
      }
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${server.address().port}/hooks`,
    close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))),
  };
}

/** A simulated phone as a process, restartable with the same data folder; `onSent(id, phone, at)` per SMS handed to its radio. */
function phoneProcess(stack, client, device, name, onSent) {
  let child;
  const phone = {
    name,
    device,
    start() {
      child = spawn(
        process.execPath,
        simulatedPhoneArgs({
          repoRoot: REPO_ROOT,
          hubUrl: stack.hubUrl,
          caFile: stack.certs.caCertFile,
          clientId: client.client_id,
          devicePassword: device.device_password,
          dataDir: path.join(stack.logDir, `faults-${name}`),
          extra: ['--sim-delivery-delay-ms', '100'],
        }),
        { stdio: ['ignore', 'pipe', fs.openSync(path.join(stack.logDir, `faults-${name}.log`), 'a')] },
      );
      readline.createInterface({ input: child.stdout }).on('line', (line) => {
        let id;
        try {
          id = JSON.parse(line).message_id;
        } catch {
          return; // not a --log-json line
        }
        if (id) onSent(id, name, Date.now());
      });
    },
    async kill(signal = 'SIGKILL') {
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
  return phone;
}

/** The sender: MESSAGES at RATE a second, send and send-bulk mixed, every request idempotent and retried. */
function startSender({ api, record }) {
  let made = 0;
  let n = 0;
  const inFlight = new Set();
  const recipient = () => `+336${String(20_000_000 + n++)}`;
  const one = async (kind) => {
    const key = randomUUID();
    const pathname = kind === 'send' ? '/v1/sms/send' : '/v1/sms/send-bulk';
    const count = kind === 'send' ? 1 : Math.min(BULK, MESSAGES - made);
    made += count;
    const body =
      kind === 'send'
        ? { to: recipient(), message: 'faults benchmark', metadata: { key } }
        : { recipients: Array.from({ length: count }, recipient), message: 'faults benchmark', metadata: { key } };
    const first = Date.now();
    const request = { key, kind, count, first, attempts: [] };
    record.requests.push(request);
    for (;;) {
      const at = Date.now();
      let res;
      try {
        res = await api(pathname, body, key);
      } catch (err) {
        res = { status: 0, body: { error: { code: err.code ?? err.message } }, headers: {} };
      }
      request.attempts.push({ at, end: Date.now(), status: res.status, code: res.body?.error?.code });
      if (res.status === 200) {
        request.end = Date.now();
        const ids = kind === 'send' ? [res.body.message_id] : res.body.messages.map((m) => m.message_id);
        for (const id of ids) if (!record.accepted.has(id)) record.accepted.set(id, request.end);
        request.ids = ids;
        return;
      }
      const retryable = res.status === 0 || res.status === 409 || res.status === 429 || res.status >= 500;
      if (!retryable || Date.now() - first > GIVE_UP_MS) {
        request.end = Date.now();
        request.refused = `${res.status} ${res.body?.error?.code ?? ''}`;
        log(`request refused: ${request.refused}`);
        return;
      }
      const after = Number(res.headers?.['retry-after']);
      await sleep(Math.min(2000, Number.isFinite(after) && after > 0 ? after * 1000 : 250) * (0.5 + Math.random() / 2));
    }
  };
  const done = (async () => {
    const t0 = Date.now();
    let sentMessages = 0;
    let i = 0;
    while (made < MESSAGES) {
      const kind = i++ % 2 === 0 ? 'send' : 'send-bulk';
      const before = made;
      const p = one(kind);
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
      sentMessages += made - before;
      const next = t0 + (sentMessages / RATE) * 1000;
      await sleep(Math.max(0, next - Date.now()));
    }
    record.sendingEnded = Date.now();
    await Promise.all([...inFlight]);
  })();
  return { done, made: () => made };
}

/** Every message of the client (history, 100 a page), by id: status and sent_at. */
async function listMessages(get, status) {
  const all = new Map();
  for (let page = 1; ; page++) {
    const res = await get(`/v1/sms/history?limit=100&page=${page}${status ? `&status=${status}` : ''}`);
    if (res.status !== 200) throw new Error(`history answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
    for (const m of res.body.data) all.set(m.message_id, m);
    if (page >= res.body.pagination.total_pages) return all;
  }
}

/** How many of the sorted `times` are at or before `t`. */
function countAtOrBefore(times, t) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The longest gap between consecutive `times` (sorted) that overlaps [from, to]. */
function longestGap(times, from, to) {
  let i = Math.max(0, countAtOrBefore(times, from) - 1);
  let gap = 0;
  for (; i + 1 < times.length && times[i] <= to; i++) gap = Math.max(gap, times[i + 1] - Math.max(times[i], from));
  return gap;
}

/**
 * The figures of one fault, over its segment [fault start, next fault start): failed send attempts,
 * the slowest accepted request, the longest pause of hand-offs to phones and of final events, and
 * when each backlog (accepted minus handed off, accepted minus final) was back to its level at the
 * fault's start.
 */
function faultFigures(fault, segmentEnd, record, series) {
  const { accepted, handed, finals } = series;
  const attempts = record.requests.flatMap((r) => r.attempts).filter((a) => a.at >= fault.start && a.at < segmentEnd);
  const failed = attempts.filter((a) => a.status !== 200);
  const requests = record.requests.filter((r) => r.first >= fault.start && r.first < segmentEnd && r.ids);
  const latency = requests.map((r) => r.end - r.first);
  const caughtUp = (done) => {
    const backlog = (t) => countAtOrBefore(accepted, t) - countAtOrBefore(done, t);
    const margin = Math.max(10, RATE);
    const base = backlog(fault.start);
    for (let t = fault.end; t < segmentEnd + 300_000; t += 100) if (backlog(t) <= base + margin) return t - fault.start;
    return NaN;
  };
  const codes = {};
  for (const a of failed) codes[a.status === 0 ? a.code : `${a.status}`] = true;
  return {
    fault: fault.name,
    window_s: (fault.end - fault.start) / 1000,
    failed_attempts: failed.length,
    failing_for_s: failed.length ? (Math.max(...failed.map((a) => a.end)) - fault.start) / 1000 : 0,
    error_kinds: Object.keys(codes).join(' ') || '-',
    max_accept_s: latency.length ? Math.max(...latency) / 1000 : NaN,
    handoff_gap_s: longestGap(handed, fault.start, segmentEnd) / 1000,
    final_gap_s: longestGap(finals, fault.start, segmentEnd) / 1000,
    handoff_caught_up_s: caughtUp(handed) / 1000,
    final_caught_up_s: caughtUp(finals) / 1000,
    died: fault.died.join(' ') || '-',
  };
}

function printTable(rows) {
  const cols = Object.keys(rows[0]);
  const cell = (v) => (typeof v === 'number' ? (Number.isNaN(v) ? 'never' : Number.isInteger(v) ? String(v) : v.toFixed(1)) : String(v));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values) => `| ${values.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => cell(r[c]))));
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-faults-'));
  // The postgres user must pass through it to its data folder.
  fs.chmodSync(dir, 0o711);
  log(
    `${os.cpus().length} CPUs, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${MESSAGES} messages at ${RATE}/s; faults: ${FAULTS.join(', ')}`,
  );
  const [postgres, redis, nats] = await Promise.all([
    startPrivatePostgres(dir),
    startPrivateServer('redis', { dataDir: dir }),
    startPrivateServer('nats', { dataDir: dir }),
  ]);
  const stackDir = path.join(REPO_ROOT, '.stack/bench-faults');
  let stack;
  let admin;
  let receiver;
  const phones = [];
  try {
    stack = await startStack({
      dataDir: stackDir,
      isolated: true,
      infra: { postgresUrl: postgres.url, redisUrl: redis.url, natsUrl: nats.url },
      env: {
        LOG_LEVEL: 'warn',
        DISPATCH_INTERVAL_MIN_MS: '5',
        DISPATCH_INTERVAL_MAX_MS: '10',
        RATE_LIMIT_PER_MINUTE: '1000000000',
      },
    });
    log(`stack up; logs in ${stack.logDir}`);
    admin = new Admin(
      { accountAddress: stack.accountAddress, deviceHubAddress: stack.deviceHubAddress, webhookAddress: stack.webhookAddress },
      stack.grpcCredentials('admin'),
    );
    const client = await admin.createClient(`faults${Date.now()}@example.com`, 'bench-faults');
    const deliveries = [];
    receiver = await startReceiver(stack.certs, deliveries);
    await admin.createWebhook(client.client_id, receiver.url, ['sms.sent', 'sms.delivered', 'sms.failed']);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 64 });
    const headers = { 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id };
    const api = (pathname, body, key) =>
      request(`${stack.gatewayUrl}${pathname}`, stack.certs.caPem, {
        agent,
        method: 'POST',
        headers: { ...headers, 'Idempotency-Key': key },
        body,
      });
    const get = (pathname, extra = {}) =>
      request(`${stack.gatewayUrl}${pathname}`, stack.certs.caPem, { agent, headers: { ...headers, ...extra } });

    const handoffs = new Map();
    const onSent = (id, phone, at) => {
      const list = handoffs.get(id) ?? [];
      list.push({ phone, at });
      handoffs.set(id, list);
      if (list.length > 1) log(`SENT TWICE: ${id} by ${list.map((h) => h.phone).join(', ')}`);
    };
    for (let i = 0; i < PHONES; i++) {
      const device = await admin.createDevice(client.client_id, `faults-${i}`);
      const phone = phoneProcess(stack, client, device, `phone-${i}`, onSent);
      phone.start();
      phones.push(phone);
    }
    for (const phone of phones) {
      await waitOnline({ gatewayUrl: stack.gatewayUrl, ca: stack.certs.caPem, auth: headers, deviceId: phone.device.device_id, agent });
    }
    log(`${PHONES} phones online`);

    const record = { requests: [], accepted: new Map(), sendingEnded: undefined };
    const sender = startSender({ api, record });
    const faults = [];
    const runFault = async (name) => {
      const fault = { name: name === 'phone' ? 'SIGKILL phone-0' : SERVICES.includes(name) ? `SIGKILL ${name}` : `restart ${name}` };
      fault.start = Date.now();
      fault.died = [];
      log(`fault: ${fault.name}`);
      if (SERVICES.includes(name)) {
        const service = stack.services[name];
        process.kill(service.pid, 'SIGKILL');
        while (service.running) await sleep(10);
        await stack.restart(name);
      } else if (name === 'phone') {
        await phones[0].kill('SIGKILL');
        await sleep(OUTAGE_MS);
        phones[0].start();
      } else {
        const server = { nats, postgres, redis }[name];
        await server.stop();
        await sleep(OUTAGE_MS);
        await server.start();
      }
      fault.end = Date.now();
      log(`fault over: ${fault.name} (${((fault.end - fault.start) / 1000).toFixed(1)} s)`);
      faults.push(fault);
    };
    // A service that ended by itself during a fault's segment is a finding: it is named in the
    // fault's row, and started again so that the run goes on.
    const restartDead = async (fault) => {
      for (const name of SERVICES) {
        if (stack.services[name].running) continue;
        log(`DIED: ${name} ended by itself; starting it again`);
        fault.died.push(name);
        await stack.restart(name);
      }
    };
    await sleep(PAUSE_S * 1000);
    for (const name of FAULTS) {
      await runFault(name);
      await sleep(PAUSE_S * 1000);
      await restartDead(faults.at(-1));
    }
    const faultsEnded = Date.now();
    if (record.sendingEnded === undefined) log(`faults done; the sender goes on (${sender.made()} of ${MESSAGES} messages made)`);
    else log(`WARNING: the sender ended ${((faultsEnded - record.sendingEnded) / 1000).toFixed(0)} s before the last fault's pause did`);
    await sender.done;
    log(`sending done: ${record.accepted.size} messages accepted`);

    // Every accepted message in a final state: waits while some still become final.
    const waitStarted = Date.now();
    let progressAt = Date.now();
    let notFinal = [];
    for (let i = 0; ; i++) {
      const open = new Map([...(await listMessages(get, 'queued')), ...(await listMessages(get, 'sent'))]);
      const before = notFinal.length;
      notFinal = [...record.accepted.keys()].filter((id) => open.has(id));
      if (i === 0 || notFinal.length < before) progressAt = Date.now();
      if (notFinal.length === 0 || Date.now() - progressAt > FINAL_WAIT_S * 1000 || Date.now() - waitStarted > FINAL_WAIT_MAX_MS) break;
      if (i % 3 === 0) log(`${notFinal.length} accepted messages not final yet`);
      await sleep(3000);
    }
    log(`final states after ${((Date.now() - waitStarted) / 1000).toFixed(0)} s of waiting`);
    const messages = await listMessages(get);
    const statuses = {};
    for (const id of record.accepted.keys()) {
      const s = messages.get(id)?.status ?? 'missing';
      statuses[s] = (statuses[s] ?? 0) + 1;
    }
    const lost = [...record.accepted.keys()].filter((id) => !FINAL.has(messages.get(id)?.status));
    // Why each failed (its status says; the history does not), at most 10.
    const failures = [];
    for (const id of [...record.accepted.keys()].filter((i) => messages.get(i)?.status === 'failed').slice(0, 10)) {
      const res = await get(`/v1/sms/status/${id}`);
      failures.push(`${id} ${res.body.error?.code ?? '?'} (${res.body.error?.message ?? ''}) on ${res.body.device_id ?? '?'}`);
    }
    const extra = [...messages.keys()].filter((id) => !record.accepted.has(id));

    // Every event of a final message at the receiver, within FINAL_WAIT_S too.
    const expected = [];
    for (const id of record.accepted.keys()) {
      const m = messages.get(id);
      if (!m) continue;
      if (m.sent_at) expected.push(`${id} sms.sent`);
      if (m.status === 'delivered') expected.push(`${id} sms.delivered`);
      if (m.status === 'failed') expected.push(`${id} sms.failed`);
    }
    const byEvent = new Map();
    const received = () => {
      byEvent.clear();
      for (const d of deliveries) {
        const k = `${d.messageId} ${d.type}`;
        const ids = byEvent.get(k) ?? new Map();
        ids.set(d.eventId, (ids.get(d.eventId) ?? 0) + 1);
        byEvent.set(k, ids);
      }
      return expected.filter((k) => !byEvent.has(k));
    };
    let missing = received();
    const eventsDeadline = Date.now() + EVENT_WAIT_S * 1000;
    for (let i = 0; missing.length > 0 && Date.now() < eventsDeadline; i++) {
      if (i % 5 === 0) log(`${missing.length} events not received yet`);
      await sleep(3000);
      missing = received();
    }
    const twoIds = [...byEvent.entries()].filter(([, ids]) => ids.size > 1);
    const redelivered = [...byEvent.values()].filter((ids) => [...ids.values()].some((n) => n > 1)).length;
    const twice = [...handoffs.entries()].filter(([, list]) => list.length > 1);
    const notAccepted = [...handoffs.keys()].filter((id) => !record.accepted.has(id));

    const sorted = (values) => [...values].sort((a, b) => a - b);
    const finalAt = new Map();
    for (const d of deliveries) {
      if ((d.type === 'sms.delivered' || d.type === 'sms.failed') && !finalAt.has(d.messageId)) finalAt.set(d.messageId, d.at);
    }
    const series = {
      accepted: sorted(record.accepted.values()),
      handed: sorted([...handoffs.values()].map((list) => list[0].at)),
      finals: sorted(finalAt.values()),
    };
    const rows = faults.map((fault, i) => faultFigures(fault, faults[i + 1]?.start ?? faultsEnded, record, series));
    const baseline = record.requests.filter((r) => r.ids && r.first < (faults[0]?.start ?? Infinity)).map((r) => r.end - r.first);
    const requests = record.requests.length;
    const retried = record.requests.filter((r) => r.attempts.length > 1).length;
    const refused = record.requests.filter((r) => r.refused);
    const errors = {};
    for (const a of record.requests.flatMap((r) => r.attempts)) {
      if (a.status === 200) continue;
      const k = `${a.status} ${a.code ?? ''}`.trim();
      errors[k] = (errors[k] ?? 0) + 1;
    }

    console.log(`\nfaults under load: ${MESSAGES} messages at ${RATE}/s, ${PHONES} phones, pause ${PAUSE_S} s, outages ${OUTAGE_MS} ms`);
    console.log(
      `machine: ${os.cpus().length} CPUs, load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; run ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    console.log(
      `requests: ${requests} (${retried} retried, ${refused.length} refused); accept latency before the faults: max ${(Math.max(0, ...baseline) / 1000).toFixed(2)} s`,
    );
    console.log(`failed attempts by answer: ${JSON.stringify(errors)}`);
    if (rows.length > 0) printTable(rows);
    console.log(`accepted: ${record.accepted.size}; final: ${record.accepted.size - lost.length} (${JSON.stringify(statuses)})`);
    console.log(`stored but never accepted: ${extra.length}; handed to a phone but never accepted: ${notAccepted.length}`);
    console.log(
      `events: ${deliveries.length} deliveries, ${byEvent.size} (message, kind) pairs, ${expected.length} expected; delivered more than once (same id): ${redelivered}`,
    );
    for (const id of lost.slice(0, 10)) console.log(`  lost: ${id} ${messages.get(id)?.status ?? 'not stored'}`);
    for (const f of failures) console.log(`  failed: ${f}`);
    for (const [id, list] of twice.slice(0, 10))
      console.log(`  sent twice: ${id} ${list.map((h) => `${h.phone}@+${((h.at - started) / 1000).toFixed(1)}s`).join(' ')}`);
    for (const k of missing.slice(0, 10)) console.log(`  event missing: ${k}`);
    for (const [k, ids] of twoIds.slice(0, 10)) console.log(`  two ids: ${k} ${[...ids.keys()].join(' ')}`);
    console.log(
      `lost: ${lost.length}; sent twice: ${twice.length}; events missing: ${missing.length}; events with two ids: ${twoIds.length}`,
    );
    const died = faults.flatMap((f) => f.died);
    if (died.length > 0) console.log(`services that ended by themselves: ${died.join(', ')}`);
    if (died.length > 0 || lost.length > 0 || twice.length > 0 || missing.length > 0 || twoIds.length > 0 || extra.length > 0)
      process.exitCode = 1;
  } finally {
    for (const phone of phones) await phone.kill('SIGTERM');
    admin?.close();
    await receiver?.close();
    // The stack removes its data from the three servers: they must be up.
    await Promise.all([postgres.start(), redis.start(), nats.start()]);
    await stack?.stop().catch((err) => log('stack stop:', err.message));
    await Promise.all([redis.stop(), nats.stop(), postgres.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
    // The services' logs stay for a run that found something.
    if (process.exitCode) log(`logs kept in ${stack?.logDir}`);
    else fs.rmSync(stackDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
