#!/usr/bin/env node
// Over 300 lines: `make dev` from its lock to its banner; the printed guide (the addresses, the demo
// credentials and the curl lines, about 70 lines) is a fifth of it.
import fs from 'node:fs';
import path from 'node:path';
import { Admin } from '@smsgw/admin';
import { createClient } from '@smsgw/platform';
import { deviceHubProto, type devicehub } from '@smsgw/proto';
import { clashedInternalPort, describePort, DevPortError, resolveDevPorts, takeDevLock, type DevPortKey } from './dev-ports';
import {
  freePort,
  REPO_ROOT,
  ServiceProcess,
  simulatedPhoneArgs,
  startMailCatcher,
  startStack,
  type ServiceName,
  type Stack,
} from './index';
import { printTrace, startTraceReceiver } from './trace-receiver';

// SMSGW_STACK_DIR moves everything make dev keeps (a test runs a second make dev beside a developer's).
const DATA_DIR = path.resolve(process.env.SMSGW_STACK_DIR ?? path.join(REPO_ROOT, '.stack'));
const LOCK_FILE = path.join(DATA_DIR, 'dev.lock');
const DEV_FILE = path.join(DATA_DIR, 'dev.json');
const DEMO_FILE = path.join(DATA_DIR, 'demo.json');
const MAIL_DIR = path.join(DATA_DIR, 'mail');
const TRACES_FILE = path.join(DATA_DIR, 'traces.jsonl');

interface Demo {
  /** The demo user's sign-in on the dashboard. */
  dashboard_email: string;
  dashboard_password: string;
  client_id: string;
  live_api_key: string;
  test_api_key: string;
  signing_secret: string;
  device_id: string;
  device_password: string;
  pairing_url: string;
}

const DEMO_PASSWORD = 'demo-password';

/** A demo user owning a demo client with one device; the simulated phone's old credentials no longer apply. */
async function createDemo(admin: Admin): Promise<Demo> {
  const email = `demo+${Date.now()}@example.com`;
  const { user_id: _userId, ...client } = await admin.createUser(email, DEMO_PASSWORD, 'Demo');
  const device = await admin.createDevice(client.client_id, 'Simulated phone');
  const demo = {
    dashboard_email: email,
    dashboard_password: DEMO_PASSWORD,
    ...client,
    device_id: device.device_id,
    device_password: device.device_password,
    pairing_url: device.pairing_url,
  };
  fs.rmSync(path.join(DATA_DIR, 'agent'), { recursive: true, force: true });
  fs.writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

/** `trace <trace_id>`: one trace of `make dev` (started with SMSGW_TRACES=1) as a tree. */
function trace(traceId: string | undefined): void {
  if (!traceId || !/^[0-9a-f]{32}$/.test(traceId)) {
    console.error('usage: npm run trace -- <trace_id>   (32 hex digits: the trace_id of a log line, or the middle of a traceparent)');
    process.exit(2);
  }
  if (!fs.existsSync(TRACES_FILE)) {
    console.error(`${TRACES_FILE} does not exist: start the stack with SMSGW_TRACES=1 make dev`);
    process.exit(1);
  }
  console.log(printTrace(TRACES_FILE, traceId));
}

/** What has been started so far, stopped in reverse order when start-up fails or on Ctrl-C. */
const started: { name: string; stop: () => Promise<void> | void }[] = [];
async function stopStarted(): Promise<void> {
  for (const { stop } of started.splice(0).reverse()) {
    try {
      await stop();
    } catch {
      // Best effort: the rest still has to stop.
    }
  }
}

/** Ports chosen by resolveDevPorts, kept to explain an EADDRINUSE that raced the check. */
let devPorts: Record<DevPortKey, number> | undefined;

async function dev(): Promise<void> {
  const startedAt = Date.now();
  const say = (line: string) => console.log(`[stack] ${line}`);
  fs.mkdirSync(DATA_DIR, { recursive: true });
  started.push({ name: 'lock', stop: takeDevLock(LOCK_FILE) });
  const { ports, moved } = await resolveDevPorts(process.env);
  devPorts = ports;
  for (const line of moved) say(line);
  const metricsPorts = () =>
    Object.fromEntries(
      Object.entries(ports)
        .filter(([key]) => key.startsWith('metrics:'))
        .map(([key, p]) => [key.slice('metrics:'.length), p]),
    ) as Partial<Record<ServiceName, number>>;
  // Alert e-mails (dropped webhook deliveries) land here instead of a real mailbox.
  const mail = await startMailCatcher({
    port: ports.smtp,
    dir: MAIL_DIR,
    onMail: (m) => say(`mail to ${m.to.join(', ')}: "${m.subject}" (${path.relative(process.cwd(), m.file!)})`),
  });
  // SMSGW_TRACES=1: every service exports its spans to a local receiver (.stack/traces.jsonl).
  started.push({ name: 'mail catcher', stop: () => mail.stop() });
  const traces = process.env.SMSGW_TRACES === '1' ? await startTraceReceiver(TRACES_FILE) : undefined;
  if (traces) started.push({ name: 'trace receiver', stop: () => traces.stop() });
  const tracingEnv: Record<string, string> = traces
    ? { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '500' }
    : {};
  const stackOptions = () => ({
    dataDir: DATA_DIR,
    // SMSGW_DEV_ISOLATED=1: a database and prefixes of its own, removed at the end (the tests of make dev itself).
    isolated: process.env.SMSGW_DEV_ISOLATED === '1',
    ports: {
      gateway: ports.gateway,
      agents: ports.agents,
      account: ports.account,
      message: ports.message,
      deviceHub: ports.deviceHub,
      otp: ports.otp,
      scheduler: ports.scheduler,
      webhook: ports.webhook,
      dashboard: ports.dashboard,
      smpp: ports.smpp,
      smppHealth: ports.smppHealth,
    },
    healthPorts: {
      account: ports['health:account'],
      message: ports['health:message'],
      deviceHub: ports['health:deviceHub'],
      otp: ports['health:otp'],
      scheduler: ports['health:scheduler'],
      webhook: ports['health:webhook'],
    },
    metricsPorts: metricsPorts(),
    env: { SMTP_URL: process.env.SMTP_URL ?? mail.url, ...tracingEnv },
    log: say,
  });
  // An internal port taken between the check and a service's bind: the stack has stopped what it
  // started; the port moves to a free one and the stack starts again (twice at most).
  let stack: Stack | undefined;
  for (let attempt = 1; !stack; attempt++) {
    try {
      stack = await startStack(stackOptions());
    } catch (err) {
      const clashed = attempt < 3 ? clashedInternalPort(err instanceof Error ? err.message : String(err), ports, process.env) : undefined;
      if (!clashed) throw err;
      const replacement = await freePort();
      moved.push(
        `port ${ports[clashed.key]} was taken while make dev started: ${clashed.listener} listens on ${replacement} instead (set ${clashed.variable} to choose).`,
      );
      say(moved[moved.length - 1]!);
      ports[clashed.key] = replacement;
    }
  }
  const running = stack;
  started.push({ name: 'stack', stop: () => running.stop() });
  fs.writeFileSync(
    DEV_FILE,
    JSON.stringify(
      {
        gatewayUrl: stack.gatewayUrl,
        hubUrl: stack.hubUrl,
        caFile: stack.certs.caCertFile,
        accountAddress: stack.accountAddress,
        messageAddress: stack.messageAddress,
        deviceHubAddress: stack.deviceHubAddress,
        webhookAddress: stack.webhookAddress,
        otpAddress: stack.otpAddress,
        // The admin tool's gRPC identity (npm run admin reads it from here).
        adminGrpcTls: stack.grpcCredentials('admin'),
      },
      null,
      2,
    ),
  );

  const admin = new Admin(
    {
      accountAddress: stack.accountAddress,
      deviceHubAddress: stack.deviceHubAddress,
      webhookAddress: stack.webhookAddress,
      otpAddress: stack.otpAddress,
    },
    stack.grpcCredentials('admin'),
  );
  const devices = createClient<devicehub.DeviceHubServiceClient>(deviceHubProto().DeviceHubService, stack.deviceHubAddress, {
    tls: stack.grpcCredentials('admin'),
  });
  let saved: Demo | undefined;
  if (fs.existsSync(DEMO_FILE)) {
    const previous = JSON.parse(fs.readFileSync(DEMO_FILE, 'utf8')) as Demo;
    const stillThere = await devices.getDevice({ clientId: previous.client_id, deviceId: previous.device_id }).then(
      () => true,
      () => false,
    );
    // A demo from before the dashboard has no user: a new one is made.
    if (stillThere && previous.dashboard_email) saved = previous;
  }
  const demo = saved ?? (await createDemo(admin));
  admin.close();

  const agent = new ServiceProcess({
    name: 'agent',
    args: simulatedPhoneArgs({
      repoRoot: REPO_ROOT,
      hubUrl: stack.hubUrl,
      caFile: stack.certs.caCertFile,
      clientId: demo.client_id,
      devicePassword: demo.device_password,
      dataDir: path.join(DATA_DIR, 'agent'),
    }),
    env: {},
    logFile: path.join(stack.logDir, 'agent.log'),
    ready: () =>
      devices.getDevice({ clientId: demo.client_id, deviceId: demo.device_id }).then(
        (d) => d.status === 'online',
        () => false,
      ),
  });
  started.push({ name: 'simulated phone', stop: () => agent.stop() });
  try {
    await agent.start();
  } finally {
    devices.close();
  }

  const ca = path.relative(process.cwd(), stack.certs.caCertFile) || stack.certs.caCertFile;
  console.log(`
SMS gateway is running (ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s).${moved.length ? `\n  Moved ports       ${moved.join('\n                    ')}` : ''}

  Dashboard         ${stack.dashboardUrl}   (sign in as ${demo.dashboard_email} / ${demo.dashboard_password})
  API (gateway)     ${stack.gatewayUrl}
  Device hub        ${stack.hubUrl}   (phones pair and connect here)
  SMPP (TLS)        ${stack.smpp.host}:${stack.smpp.port}   (credentials: the dashboard's SMPP page)
  gRPC              account ${stack.accountAddress}, message ${stack.messageAddress}, device-hub ${stack.deviceHubAddress}, otp ${stack.otpAddress}, scheduler ${stack.schedulerAddress}, webhook ${stack.webhookAddress}
  CA certificate    ${stack.certs.caCertFile}
  Alert e-mails     ${mail.url} (a local catcher: mails are saved in ${MAIL_DIR} and announced here)
  Webhooks          private and loopback receivers are ALLOWED here (WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true, development only)
  Logs              ${stack.logDir}/*.log (the simulated phone's SMS are in agent.log)
  Metrics           ${Object.entries(stack.metricsUrls)
    .map(([name, url]) => `${name} ${url.replace('http://127.0.0.1', '')}`)
    .join(', ')} (http://127.0.0.1:<port>/metrics)
  Traces            ${traces ? `exported to ${path.relative(process.cwd(), TRACES_FILE)}; see one with: npm run trace -- <trace_id> (trace_id is in every log line, and in a webhook's traceparent)` : 'not exported; start with SMSGW_TRACES=1 make dev to follow each SMS as one trace'}

Demo credentials (also in ${DEMO_FILE}):
  client id         ${demo.client_id}
  live API key      ${demo.live_api_key}
  test API key      ${demo.test_api_key}
  webhook secret    ${demo.signing_secret}
  device id         ${demo.device_id} (simulated phone, online)
  device password   ${demo.device_password}

Send an SMS through the simulated phone:

curl --cacert ${ca} ${stack.gatewayUrl}/v1/sms/send \\
  -H 'Content-Type: application/json' \\
  -H 'X-API-Key: ${demo.live_api_key}' \\
  -H 'X-Client-ID: ${demo.client_id}' \\
  -H 'X-Device-ID: ${demo.device_id}' \\
  -d '{"to": "+33612345678", "message": "Bonjour depuis la passerelle SMS"}'

Then follow it with GET ${stack.gatewayUrl}/v1/sms/status/<message_id> (same headers).

A one-time password: the code is in the simulated phone's SMS (agent.log), or 123456 with the test key:

curl --cacert ${ca} ${stack.gatewayUrl}/v1/sms/send-otp \\
  -H 'Content-Type: application/json' \\
  -H 'X-API-Key: ${demo.live_api_key}' \\
  -H 'X-Client-ID: ${demo.client_id}' \\
  -d '{"to": "+33612345678"}'

curl --cacert ${ca} ${stack.gatewayUrl}/v1/sms/verify-otp \\
  -H 'Content-Type: application/json' \\
  -H 'X-API-Key: ${demo.live_api_key}' \\
  -H 'X-Client-ID: ${demo.client_id}' \\
  -d '{"otp_id": "<otp_id>", "code": "<code>"}'

Two-way SMS: make the simulated phone receive an SMS, then read it in the inbox (it is also an sms.received event):

npm run -s admin -- receive-sms --client ${demo.client_id} --device ${demo.device_id} --from +33612345678 --text 'Oui, merci'
curl --cacert ${ca} ${stack.gatewayUrl}/v1/sms/inbox \\
  -H 'X-API-Key: ${demo.live_api_key}' \\
  -H 'X-Client-ID: ${demo.client_id}'

Webhooks: subscribe an endpoint (the secret is printed once), then run the example receiver with it:

npm run -s admin -- create-webhook --client ${demo.client_id} --url https://127.0.0.1:9443/webhooks --events sms.sent,sms.delivered,sms.failed
node examples/webhook-receiver.mjs --port 9443 --secret <secret> --cert ${path.relative(process.cwd(), stack.certs.certFile)} --key ${path.relative(process.cwd(), stack.certs.keyFile)}

An AI agent over MCP (docs/api/mcp.md): this is the command for its MCP client's configuration (stdio),
or point it at ${stack.gatewayUrl}/v1/mcp with the X-API-Key and X-Client-ID headers:

SMSGW_API_KEY=${demo.test_api_key} npm run -s mcp -- --client-id ${demo.client_id}

Press Ctrl-C to stop everything.
`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    say('stopping...');
    await stopStarted();
    fs.rmSync(DEV_FILE, { force: true });
    say('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

const command = process.argv[2] ?? 'dev';
if (command === 'trace') {
  trace(process.argv[3]);
  process.exit(0);
}
if (command !== 'dev') {
  console.error('usage: smsgw-stack dev | trace <trace_id>');
  process.exit(2);
}
dev().catch(async (err: unknown) => {
  console.error(`[stack] ${startupFailure(err)}`);
  await stopStarted();
  process.exit(1);
});

/** One line for the failures a developer meets, the whole story for the others. */
function startupFailure(err: unknown): string {
  if (err instanceof DevPortError) return err.message;
  const text = err instanceof Error ? err.message : String(err);
  // A port taken between the check and the bind: the service died with EADDRINUSE and a stack trace.
  const busy = /EADDRINUSE[^\n]*?:(\d+)/.exec(text);
  const port = busy ? describePort(Number(busy[1]), devPorts ?? ({} as Record<DevPortKey, number>)) : undefined;
  if (busy && port) {
    return `port ${busy[1]} was taken while make dev started: ${port.listener} cannot listen on it. Free it, or set ${port.variable} to another port.`;
  }
  return `start-up failed: ${text}`;
}
