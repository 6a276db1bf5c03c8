'use strict';
/**
 * The fleet simulator: thousands of phones in a few processes (phones.js), each speaking
 * PROTOCOL.md as the simulator driver does, since one Node agent per phone (about 55 MB) cannot
 * reach those numbers on 2 cores.
 *
 *   const phones = await provision({ admin, hubUrl, ca, clientId, count });  // gRPC CreateDevice, then pairing
 *   const fleet = startFleet({ phones, hubUrl, caFile, processes: 2 });
 *   await fleet.waitConnected(phones.length, 120_000);
 *   fleet.offered   // Map message_id -> [{ at, phone, attempt }]: every `sms` frame seen
 *   fleet.resumed   // reconnections whose TLS session the hub resumed (of fleet.reconnections)
 *   await fleet.stop();
 *
 * One process may hold at most its open-files limit of sockets (`ulimit -n`; 20,000 here, which
 * root cannot raise in this container), so the phones are spread over `processes` children, and
 * over several local source addresses so that 20,000 connections never run short of ports.
 */
const { fork } = require('node:child_process');
const fs = require('node:fs');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');
const { sleep } = require('../lib/time');

/** Runs `task(i)` for i in [0, n) with at most `concurrency` at once; returns the results in order. */
async function pool(n, concurrency, task) {
  const results = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, concurrency) }, worker));
  return results;
}

/** POST JSON over HTTPS (the stack's CA), with a keep-alive agent; resolves `{ status, body }`. */
function postJson(url, ca, agent, body) {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = https.request(
      url,
      { method: 'POST', ca, agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Enrols `count` devices of the client in bulk, as an operator does (`create-devices`: the hub's
 * CreateDevices, 1,000 a call), then pairs each with its one-time pairing code
 * (`POST /v1/agent/pair`, PROTOCOL.md §1), `concurrency` at once. Returns `[{ device_id, token }]`.
 * `log(done)` is called every 1,000 pairings.
 */
async function provision({ admin, hubUrl, ca, clientId, count, concurrency = 16, log = () => undefined }) {
  const devices = await admin.createDevices(clientId, count, 'fleet-');
  const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency });
  let done = 0;
  try {
    return await pool(devices.length, concurrency, async (i) => {
      const device = devices[i];
      for (let tries = 0; ; tries++) {
        const res = await postJson(`${hubUrl}/v1/agent/pair`, ca, agent, {
          pairing_code: device.pairing_code,
          agent: { name: 'smsgw-fleet-sim', version: '1', driver: 'simulator' },
        });
        if (res.status === 200) {
          if (++done % 1000 === 0) log(done);
          return { device_id: res.body.device_id, token: res.body.device_token };
        }
        if (res.status !== 503 || tries > 5)
          throw new Error(`pairing ${device.device_id} answered ${res.status}: ${JSON.stringify(res.body)}`);
        await sleep(500);
      }
    });
  } finally {
    agent.destroy();
  }
}

/**
 * Starts the phones in `processes` children. Settings: `sentDelayMs` (100) and `deliveryDelayMs`
 * (500) after the ack, `connectConcurrency` (100 handshakes at once per child, at start only).
 */
function startFleet({ phones, hubUrl, caFile, processes = 1, sentDelayMs, deliveryDelayMs, connectConcurrency }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-fleet-'));
  const wsUrl = `${hubUrl.replace(/^http/, 'ws')}/v1/agent`;
  const children = [];
  const state = {
    connected: [],
    rss: [],
    reports: [],
    reportAcks: [],
    reconnections: [],
    resumed: [],
    closeCodes: [],
    connectErrors: [],
    offered: new Map(),
    offeredCount: 0,
    listeners: new Set(),
  };
  const per = Math.ceil(phones.length / processes);
  for (let c = 0; c < processes; c++) {
    const slice = phones.slice(c * per, (c + 1) * per);
    const file = path.join(dir, `phones-${c}.json`);
    fs.writeFileSync(file, JSON.stringify(slice));
    const settings = {
      wsUrl,
      caFile,
      sentDelayMs,
      deliveryDelayMs,
      connectConcurrency,
      // 40 source addresses per child: 40 × 28,000 ephemeral ports, far from running short.
      localAddresses: 40,
      addressOffset: c * 40,
    };
    const child = fork(path.join(__dirname, 'phones.js'), [file], {
      env: { ...process.env, FLEET_SETTINGS: JSON.stringify(settings) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: ['--max-old-space-size=4096'],
    });
    child.on('message', (msg) => {
      if (msg.type !== 'stats') return;
      state.connected[c] = msg.connected;
      state.rss[c] = msg.rssBytes;
      state.reports[c] = msg.reports;
      state.reportAcks[c] = msg.reportAcks;
      state.reconnections[c] = msg.reconnections;
      state.resumed[c] = msg.resumed;
      state.closeCodes[c] = msg.closeCodes;
      state.connectErrors[c] = msg.connectErrors;
      for (const [id, at, index, attempt] of msg.offered) {
        const phone = c * per + index;
        let list = state.offered.get(id);
        if (!list) state.offered.set(id, (list = []));
        list.push({ at, phone, attempt });
        state.offeredCount++;
        for (const listener of state.listeners) listener(id, at, phone);
      }
    });
    children.push(child);
  }
  const sum = (xs) => xs.reduce((a, b) => a + (b ?? 0), 0);
  const merge = (tables) => {
    const out = {};
    for (const t of tables) for (const [k, v] of Object.entries(t ?? {})) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    children,
    get connected() {
      return sum(state.connected);
    },
    get rssBytes() {
      return sum(state.rss);
    },
    get reports() {
      return sum(state.reports);
    },
    get reportAcks() {
      return sum(state.reportAcks);
    },
    /** Connections over TLS of phones that had been connected before. */
    get reconnections() {
      return sum(state.reconnections);
    },
    /** Those of `reconnections` whose TLS session the hub resumed (no full handshake). */
    get resumed() {
      return sum(state.resumed);
    },
    get closeCodes() {
      return merge(state.closeCodes);
    },
    get connectErrors() {
      return merge(state.connectErrors);
    },
    offered: state.offered,
    get offeredCount() {
      return state.offeredCount;
    },
    /** `listener(messageId, at, phone)` for each `sms` frame from now on. */
    onOffered(listener) {
      state.listeners.add(listener);
    },
    /** Message ids offered to two different phones: a real phone would have sent each twice. */
    sentTwice() {
      const twice = [];
      for (const [id, list] of state.offered) if (new Set(list.map((o) => o.phone)).size > 1) twice.push(id);
      return twice;
    },
    /** Resolves when at least `n` phones are connected; rejects after `timeoutMs`. Returns the time it took. */
    async waitConnected(n, timeoutMs, since = Date.now()) {
      let said = Date.now();
      while (this.connected < n) {
        const what = () =>
          `${this.connected} of ${n} phones connected; refused: ${JSON.stringify(this.connectErrors)}, closed: ${JSON.stringify(this.closeCodes)}`;
        if (Date.now() - since > timeoutMs) throw new Error(`after ${timeoutMs} ms, ${what()}`);
        if (Date.now() - said > 10_000) {
          said = Date.now();
          console.error(`[${new Date().toISOString().slice(11, 19)}] ${what()}`);
        }
        await sleep(100);
      }
      return Date.now() - since;
    },
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', resolve);
              child.send({ cmd: 'close' });
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        ),
      );
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** How many calls of gRPC `method` a service has answered (its `/metrics`, every outcome). */
async function rpcCalls(metricsUrl, method) {
  const text = await (await fetch(metricsUrl)).text();
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('smsgw_rpc_server_duration_seconds_count{') && line.includes(`rpc_method="${method}"`))
      n += Number(line.split(' ').at(-1));
  }
  return n;
}

module.exports = { pool, provision, rpcCalls, startFleet };
