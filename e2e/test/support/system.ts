import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Admin } from '@smsgw/admin';
import { attachStack, REPO_ROOT, simulatedPhoneArgs, startStack, type Stack, type StackDescriptor } from '@smsgw/stack';
import { AgentProcess } from './agent';
import { eventually, request, type ApiRequest, type ApiResponse } from './http';
import { E2E_DATA_DIR, E2E_ENV, SHARED_STACK_FILE } from './shared-stack';

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
 * The whole system for a test file: every service as its own process on free ports, with a
 * database, NATS prefix and Redis prefix of its own that stop() removes (start()), or the run's
 * shared stack, on which the file's clients and phones are its own (shared()). Pacing is shortened
 * so that tests do not wait 2-3 s per SMS.
 */
export class TestSystem {
  private readonly agents: AgentProcess[] = [];
  private agentCount = 0;

  /** Names this file's phones' folders apart from other files' on a shared stack. */
  private readonly tag: string;

  private constructor(
    readonly stack: Stack,
    readonly admin: Admin,
    private readonly ownsStack: boolean,
  ) {
    this.tag = ownsStack ? '' : `${randomBytes(3).toString('hex')}-`;
  }

  /** `infra` points the services at other Redis/NATS/Postgres servers (an outage test's private ones). */
  static async start(env: Record<string, string> = {}, infra?: { redisUrl?: string; natsUrl?: string }): Promise<TestSystem> {
    const stack = await startStack({ dataDir: E2E_DATA_DIR, isolated: true, infra, env: { ...E2E_ENV, ...env } });
    return TestSystem.on(stack, true);
  }

  /**
   * The stack started for the whole run, with the settings of start() without arguments but
   * quicker phones and no budgets per client address (`SHARED_ENV`). For a file that
   * restarts nothing, sets nothing of its own and counts only what its own clients did.
   */
  static async shared(): Promise<TestSystem> {
    if (!fs.existsSync(SHARED_STACK_FILE))
      throw new Error(`no shared stack at ${SHARED_STACK_FILE}: run the file with jest (e2e/jest.config.js starts it)`);
    return TestSystem.on(attachStack(JSON.parse(fs.readFileSync(SHARED_STACK_FILE, 'utf8')) as StackDescriptor), false);
  }

  private static on(stack: Stack, ownsStack: boolean): TestSystem {
    const addresses = {
      accountAddress: stack.accountAddress,
      deviceHubAddress: stack.deviceHubAddress,
      webhookAddress: stack.webhookAddress,
      otpAddress: stack.otpAddress,
    };
    return new TestSystem(stack, new Admin(addresses, stack.grpcCredentials('admin')), ownsStack);
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
    return this.admin.createClient(`dev${Date.now()}-${randomBytes(3).toString('hex')}@example.com`, 'e2e');
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
    const dataDir = options.dataDir ?? path.join(this.stack.logDir, `agent-${this.tag}${n}`);
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
      path.join(this.stack.logDir, `agent-${this.tag}${n}.log`),
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
    if (this.ownsStack) await this.stack.stop();
  }
}
