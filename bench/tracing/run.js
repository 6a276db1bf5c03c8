'use strict';
/**
 * `node bench/tracing/run.js`: what tracing costs. One run starts the whole stack three times
 * and measures accepted `POST /v1/sms/send` per second (autocannon, BENCH_CONNECTIONS 50 for
 * BENCH_DURATION 15 s after 3 s of warm-up, one simulated phone online) with:
 *   - off:      the OpenTelemetry SDK disabled (OTEL_SDK_DISABLED=true: no spans, no trace ids);
 *   - spans:    spans made (trace ids in the logs) but not exported, the default;
 *   - exported: every span exported over OTLP/HTTP (JSON) to a local receiver that reads them.
 * Prints the throughput and p99 of each and the ratios exported / off and spans / off.
 * Needs `make build` and Postgres, Redis and NATS as for the tests.
 */
const http = require('node:http');
const path = require('node:path');
const autocannon = require('autocannon');
const { startStack, simulatedPhone, REPO_ROOT } = require('@smsgw/stack');
const { Admin } = require('@smsgw/admin');
const { intEnv } = require('../lib/knobs');

const CONNECTIONS = intEnv('BENCH_CONNECTIONS', 50, 2);
const DURATION_S = intEnv('BENCH_DURATION', 15, 1);
const WARMUP_S = intEnv('BENCH_WARMUP', 3, 1);
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

/** A receiver that reads every OTLP/HTTP export (parses it, as a collector would) and counts the spans. */
async function otlpReceiver() {
  let spans = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        for (const rs of JSON.parse(Buffer.concat(chunks).toString('utf8')).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans += (ss.spans ?? []).length;
      } catch {
        // not JSON
      }
      res.writeHead(200).end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, spans: () => spans, close: () => new Promise((r) => server.close(r)) };
}

async function measure(label, env) {
  const stack = await startStack({
    dataDir: path.join(REPO_ROOT, 'bench/.data-tracing'),
    isolated: true,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000000', ...env },
  });
  const admin = new Admin(
    {
      accountAddress: stack.accountAddress,
      deviceHubAddress: stack.deviceHubAddress,
      webhookAddress: stack.webhookAddress,
    },
    stack.grpcCredentials('admin'),
  );
  let agent;
  try {
    const client = await admin.createClient('bench@example.com', 'bench');
    const device = await admin.createDevice(client.client_id, 'bench phone');
    agent = simulatedPhone(stack, { clientId: client.client_id, devicePassword: device.device_password }, { repoRoot: REPO_ROOT });
    await agent.start();
    await new Promise((r) => setTimeout(r, 2000));
    const options = {
      url: `${stack.gatewayUrl}/v1/sms/send`,
      method: 'POST',
      connections: CONNECTIONS,
      headers: {
        'content-type': 'application/json',
        'x-api-key': client.live_api_key,
        'x-client-id': client.client_id,
        'x-device-id': device.device_id,
      },
      body: JSON.stringify({ to: '+33612345678', message: 'Benchmark tracing' }),
      tls: { ca: stack.certs.caPem },
    };
    await autocannon({ ...options, duration: WARMUP_S });
    const result = await autocannon({ ...options, duration: DURATION_S });
    const ok = result['2xx'];
    const out = { label, perSecond: ok / DURATION_S, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
    log(`${label}: ${out.perSecond.toFixed(0)} sends/s, p99 ${out.p99} ms (non-2xx ${out.non2xx}, errors ${out.errors})`);
    return out;
  } finally {
    await agent?.stop();
    admin.close();
    await stack.stop();
  }
}

async function main() {
  const receiver = await otlpReceiver();
  try {
    const off = await measure('off', { OTEL_SDK_DISABLED: 'true' });
    const spans = await measure('spans', {});
    const exported = await measure('exported', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    log(`spans received by the OTLP receiver: ${receiver.spans()}`);
    const summary = {
      off,
      spans,
      exported,
      ratio_exported_to_off: exported.perSecond / off.perSecond,
      ratio_spans_to_off: spans.perSecond / off.perSecond,
      spans_received: receiver.spans(),
    };
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    await receiver.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
