import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Admin } from '@smsgw/admin';
import { REPO_ROOT, simulatedPhoneArgs, startStack, type Stack } from '@smsgw/stack';
import { AgentProcess } from './agent';
import { eventually, request, type ApiRequest, type ApiResponse } from './http';

const run = promisify(execFile);

export interface DemoClient {
  client_id: string;
  live_api_key: string;
  test_api_key: string;
  signing_secret: string;
}

export interface DemoDevice {
  device_id: string;
  device_password: string;
  pairing_url: string;
}

/**
 * The whole system for one test file: every service as its own process on
 * free ports, with a database, NATS prefix and Redis prefix of its own that
 * stop() removes. Pacing is shortened so that tests do not wait 2-3 s per SMS.
 */
export class TestSystem {
  private readonly agents: AgentProcess[] = [];
  private agentCount = 0;

  private constructor(
    readonly stack: Stack,
    readonly admin: Admin,
  ) {}

  /** `infra` points the services at other Redis/NATS/Postgres servers (an outage test's private ones). */
  static async start(env: Record<string, string> = {}, infra?: { redisUrl?: string; natsUrl?: string }): Promise<TestSystem> {
    const stack = await startStack({
      dataDir: path.join(REPO_ROOT, '.stack/e2e'),
      isolated: true,
      infra,
      env: {
        LOG_LEVEL: 'debug',
        DISPATCH_INTERVAL_MIN_MS: '50',
        DISPATCH_INTERVAL_MAX_MS: '100',
        DISPATCH_SWEEP_MS: '1000',
        // The tests' lost wake-ups are found within the sweep, as before the idle waits grew.
        DISPATCH_IDLE_SWEEP_MAX_MS: '1000',
        DISPATCH_LEASE_MS: '5000',
        ...env,
      },
    });
    return new TestSystem(
      stack,
      new Admin(
        {
          accountAddress: stack.accountAddress,
          deviceHubAddress: stack.deviceHubAddress,
          webhookAddress: stack.webhookAddress,
          otpAddress: stack.otpAddress,
        },
        stack.grpcCredentials('admin'),
      ),
    );
  }

  /** Runs the operator command line (`npm run admin -- ...`) against this system. */
  async cli(...args: string[]): Promise<Record<string, unknown>> {
    const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'tools/admin/dist/cli.js'), ...args], {
      env: {
        ...process.env,
        ACCOUNT_GRPC_ADDR: this.stack.accountAddress,
        DEVICE_HUB_GRPC_ADDR: this.stack.deviceHubAddress,
        WEBHOOK_GRPC_ADDR: this.stack.webhookAddress,
        OTP_GRPC_ADDR: this.stack.otpAddress,
        GRPC_TLS_CA_FILE: this.stack.grpcCredentials('admin').caFile,
        GRPC_TLS_CERT_FILE: this.stack.grpcCredentials('admin').certFile,
        GRPC_TLS_KEY_FILE: this.stack.grpcCredentials('admin').keyFile,
      },
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  async createClient(): Promise<DemoClient> {
    return this.admin.createClient(`dev${Date.now()}@example.com`, 'e2e');
  }

  async createDevice(clientId: string, name = 'phone'): Promise<DemoDevice> {
    return this.admin.createDevice(clientId, name);
  }

  /** Starts a simulated phone for the device and waits until it is online. */
  async startAgent(
    client: DemoClient,
    device: DemoDevice,
    options: { dataDir?: string; extraArgs?: string[]; waitOnline?: boolean } = {},
  ): Promise<AgentProcess> {
    const n = ++this.agentCount;
    const dataDir = options.dataDir ?? path.join(this.stack.logDir, `agent-${n}`);
    const agent = new AgentProcess(
      simulatedPhoneArgs({
        repoRoot: REPO_ROOT,
        hubUrl: this.stack.hubUrl,
        caFile: this.stack.certs.caCertFile,
        clientId: client.client_id,
        devicePassword: device.device_password,
        dataDir,
        extra: ['--sim-delivery-delay-ms', '100', ...(options.extraArgs ?? [])],
      }),
      path.join(this.stack.logDir, `agent-${n}.log`),
    ).start();
    this.agents.push(agent);
    if (options.waitOnline !== false) await this.waitOnline(client, device);
    return agent;
  }

  async waitOnline(client: DemoClient, device: DemoDevice, online = true, timeoutMs = 20_000): Promise<void> {
    const want = online ? 'online' : 'offline';
    await eventually(
      async () => ((await this.deviceStatus(client, device)) === want ? true : undefined),
      timeoutMs,
      `device ${device.device_id} ${want}`,
      // Each probe is an API call, counted by the client's 100 a minute: a phone that takes its
      // time to come back (a hub restart: up to 11 s, then backoff) must not use them all up.
      500,
    );
  }

  /** The device's presence as the hub reports it. */
  async deviceStatus(client: DemoClient, device: DemoDevice): Promise<string> {
    const res = await this.api('/v1/auth/test', client, { headers: { 'X-Device-ID': device.device_id } });
    if (res.status === 503) return 'offline';
    return String(res.body.device_status);
  }

  /** A request to the gateway with the client's credentials (live key unless `mode` is test). */
  api(pathname: string, client: DemoClient | undefined, req: ApiRequest = {}, mode: 'live' | 'test' = 'live'): Promise<ApiResponse> {
    const auth = client
      ? { 'X-API-Key': mode === 'live' ? client.live_api_key : client.test_api_key, 'X-Client-ID': client.client_id }
      : {};
    return request(`${this.stack.gatewayUrl}${pathname}`, this.stack.certs.caPem, { ...req, headers: { ...auth, ...req.headers } });
  }

  /** Waits until the message reaches `status` and returns its status response. */
  async waitForStatus(
    client: DemoClient,
    messageId: string,
    status: string,
    timeoutMs = 20_000,
    mode: 'live' | 'test' = 'live',
  ): Promise<Record<string, unknown>> {
    return eventually(
      async () => {
        const res = await this.api(`/v1/sms/status/${messageId}`, client, {}, mode);
        return res.body.status === status ? res.body : undefined;
      },
      timeoutMs,
      `${messageId} to be ${status}`,
      // Each probe is an API call, counted by the client's 100 a minute: a long wait (a phone
      // coming back) polled every 100 ms used them all up and the test's next send got 429.
      500,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.kill()));
    this.admin.close();
    await this.stack.stop();
  }
}
