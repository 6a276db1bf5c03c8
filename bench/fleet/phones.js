'use strict';
/**
 * One process holding many phone connections, each speaking android-agent/PROTOCOL.md (version 4)
 * as the simulator driver does: `agent_hello` after the hub's `hello`, `ack` at once for each
 * `sms` (again, and never a second send, for an SMS offered again), a `report` sent then delivered
 * after the configured delays (magic numbers fail as the simulator's), every report sent again
 * after each `hello` until its `report_ack`, `reconnect` obeyed, and reconnection with exponential
 * backoff and full jitter, offering the TLS session the hub gave last (resumption, PROTOCOL.md §2).
 *
 * Started by fleet.js with `fork`: the phones' credentials come in a file (argv[2]); settings in
 * the environment (FLEET_*). Reports to its parent every 250 ms: how many phones are connected,
 * the SMS offered (message id, time, device, attempt), the close codes and connect errors seen, and
 * how many reconnections over TLS were made and how many of them resumed the phone's TLS session.
 * A parent message `{ cmd: 'close' }` closes every phone without reconnecting.
 */
const fs = require('node:fs');
const tls = require('node:tls');
const WebSocket = require('ws');

const phones = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const settings = JSON.parse(process.env.FLEET_SETTINGS ?? '{}');
const {
  wsUrl,
  caFile,
  sentDelayMs = 100,
  deliveryDelayMs = 500,
  connectConcurrency = 100,
  localAddresses = 1,
  addressOffset = 0,
} = settings;
// One TLS context for every phone of the process: a `ca` option on each connection would parse the
// CA and build a new context per handshake, which is most of a client's cost in a reconnect storm.
const secureContext = tls.createSecureContext({ ca: fs.readFileSync(caFile) });

const MAGIC_FAILURES = {
  '+33600000001': 'INVALID_NUMBER',
  '+33600000002': 'OUT_OF_NETWORK',
  '+33600000003': 'INSUFFICIENT_CREDIT',
  '+33600000004': 'BLACKLISTED',
};

let stopping = false;
let offered = [];
let reports = 0;
let reportAcks = 0;
let reconnections = 0;
let resumed = 0;
const closeCodes = {};
const connectErrors = {};
const count = (table, key) => (table[key] = (table[key] ?? 0) + 1);

/** One phone: its credentials, its outbox (by message id) and the reports the hub has not acknowledged. */
class Phone {
  constructor(index, { device_id, token }) {
    this.index = index;
    this.deviceId = device_id;
    this.token = token;
    this.outbox = new Map();
    this.unacked = new Map();
    this.attempt = 0;
    this.connected = false;
    this.nextDelayMs = undefined;
    /** The last TLS session the hub gave (every phone of a process connects to the one `wsUrl`). */
    this.tlsSession = undefined;
    this.everConnected = false;
  }

  connect(onSettled) {
    const localAddress = `127.0.0.${1 + addressOffset + (this.index % localAddresses)}`;
    /** The connection's TLS socket (none to a plain `ws://` hub), asked at `open` whether it resumed. */
    let tlsSocket;
    const ws = new WebSocket(wsUrl, 'smsgw.agent.v1', {
      // A plain `ws://` hub stands behind a TLS-ending ingress, which would say the phone came over HTTPS.
      headers: { Authorization: `Bearer ${this.token}`, ...(wsUrl.startsWith('ws:') ? { 'X-Forwarded-Proto': 'https' } : {}) },
      secureContext,
      // Passed on by ws to tls.connect: the hub resumes it without signing a handshake.
      session: this.tlsSession,
      localAddress,
      perMessageDeflate: false,
      handshakeTimeout: 30_000,
      // TLS 1.3 gives its session after the handshake, maybe before the upgrade's answer: listen on
      // the socket from the start. Node's server gives none on a resumed connection: keep the last.
      finishRequest: (req) => {
        req.once('socket', (socket) => {
          tlsSocket = socket instanceof tls.TLSSocket ? socket : undefined;
          socket.on('session', (session) => (this.tlsSession = session));
        });
        req.end();
      },
    });
    this.ws = ws;
    let settled = false;
    const settle = () => {
      if (!settled) {
        settled = true;
        onSettled?.();
      }
    };
    ws.on('unexpected-response', (_req, res) => {
      count(connectErrors, `HTTP ${res.statusCode}`);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (err) => {
      if (!this.connected) count(connectErrors, err.code ?? err.message.slice(0, 40));
    });
    ws.on('open', () => {
      this.connected = true;
      this.attempt = 0;
      if (this.everConnected && tlsSocket) {
        reconnections++;
        if (tlsSocket.isSessionReused()) resumed++;
      }
      this.everConnected = true;
      settle();
    });
    ws.on('message', (data) => this.onFrame(JSON.parse(data.toString('utf8'))));
    ws.on('close', (code) => {
      settle();
      if (this.connected) count(closeCodes, String(code));
      this.connected = false;
      if (stopping) return;
      const delay = this.nextDelayMs ?? Math.random() * Math.min(60_000, 1000 * 2 ** this.attempt);
      this.nextDelayMs = undefined;
      this.attempt++;
      setTimeout(() => this.connect(), delay);
    });
  }

  send(frame) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  onFrame(frame) {
    switch (frame.type) {
      case 'hello':
        this.send({ type: 'agent_hello', protocol: 4, driver: 'simulator', sims: [{ slot: 1 }] });
        for (const report of this.unacked.values()) this.send(report);
        return;
      case 'sms':
        return this.onSms(frame);
      case 'report_ack': {
        reportAcks++;
        this.unacked.delete(`${frame.message_id}:${frame.status}`);
        const entry = this.outbox.get(frame.message_id);
        if (entry && (frame.status === 'delivered' || frame.status === 'failed')) this.outbox.delete(frame.message_id);
        return;
      }
      case 'reconnect':
        this.nextDelayMs = frame.after_ms;
        return;
      default:
    }
  }

  onSms(frame) {
    const id = frame.message_id;
    offered.push([id, Date.now(), this.index, frame.attempt ?? 0]);
    if (this.outbox.has(id)) {
      // Offered again: acknowledged again, never sent twice.
      this.send({ type: 'ack', message_id: id, traceparent: frame.traceparent });
      return;
    }
    const sim = frame.sim;
    if (sim !== undefined && sim > 1) {
      this.outbox.set(id, { state: 'failed' });
      this.send({ type: 'ack', message_id: id, traceparent: frame.traceparent });
      this.report(id, 'failed', frame.traceparent, { error: { code: 'DEVICE_ERROR', message: `SIM ${sim} absente` }, not_sent: true });
      return;
    }
    this.outbox.set(id, { state: 'accepted' });
    this.send({ type: 'ack', message_id: id, traceparent: frame.traceparent });
    setTimeout(() => {
      const failure = MAGIC_FAILURES[frame.to];
      if (failure) {
        this.report(id, 'failed', frame.traceparent, { error: { code: failure, message: failure }, sim: 1 });
        return;
      }
      this.report(id, 'sent', frame.traceparent, { sim: 1 });
      setTimeout(() => this.report(id, 'delivered', frame.traceparent, { sim: 1 }), deliveryDelayMs);
    }, sentDelayMs);
  }

  report(id, status, traceparent, extra) {
    const entry = this.outbox.get(id);
    if (entry) entry.state = status;
    const frame = { type: 'report', message_id: id, status, at: new Date().toISOString(), traceparent, ...extra };
    reports++;
    this.unacked.set(`${id}:${status}`, frame);
    this.send(frame);
  }
}

const fleet = phones.map((p, i) => new Phone(i, p));

/** Opens every connection, at most `connectConcurrency` handshakes at a time. */
function connectAll() {
  let next = 0;
  const startOne = () => {
    if (next >= fleet.length || stopping) return;
    fleet[next++].connect(startOne);
  };
  for (let i = 0; i < connectConcurrency; i++) startOne();
}

function flush() {
  const connected = fleet.reduce((n, p) => n + (p.connected ? 1 : 0), 0);
  process.send?.({
    type: 'stats',
    connected,
    offered,
    reports,
    reportAcks,
    reconnections,
    resumed,
    closeCodes,
    connectErrors,
    rssBytes: process.memoryUsage.rss(),
  });
  offered = [];
}

setInterval(flush, 250).unref();
process.on('message', (msg) => {
  if (msg?.cmd === 'close') {
    stopping = true;
    for (const p of fleet) p.ws?.terminate();
    flush();
    setTimeout(() => process.exit(0), 200);
  }
});
process.on('disconnect', () => process.exit(0));
connectAll();
