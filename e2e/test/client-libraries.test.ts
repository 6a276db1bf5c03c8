import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@smsgw/stack';
import type { AgentProcess } from './support/agent';
import { runScenario, type ScenarioReport } from './support/client-scenario';
import { FaultProxy } from './support/fault-proxy';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; its output is kept whole. */
function runProgram(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? REPO_ROOT, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** The report a scenario program printed as its last line. */
function reportOf(run: Run, what: string): ScenarioReport {
  const last = run.stdout.trim().split('\n').at(-1) ?? '';
  if (run.code !== 0 || !last.startsWith('{')) throw new Error(`${what} exited ${run.code}:\n${run.stderr}\n${run.stdout}`);
  return JSON.parse(last) as ScenarioReport;
}

interface Tenant {
  lang: string;
  client: DemoClient;
  device: DemoDevice;
  agent: AgentProcess;
  secret: string;
}

describe('the client libraries and the command line, against the whole system', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let proxy: FaultProxy;
  let hooksDir: string;
  let pump: NodeJS.Timeout;
  const tenants = new Map<string, Tenant>();

  beforeAll(async () => {
    system = await TestSystem.shared();
    receiver = await Receiver.start(system.stack.certs);
    proxy = await FaultProxy.start(system.stack.gatewayUrl, system.stack.certs);
    hooksDir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-hooks-'));
    // The scenarios read the receiver's deliveries from files, and ask for a replay with a file.
    let written = 0;
    let busy = false;
    pump = setInterval(() => {
      if (busy) return;
      busy = true;
      void (async () => {
        for (; written < receiver.received.length; written++) {
          const r = receiver.received[written]!;
          const file = path.join(hooksDir, `${String(written).padStart(6, '0')}.json`);
          fs.writeFileSync(`${file}.tmp`, JSON.stringify({ path: r.path, signature: r.headers['x-webhook-signature'], raw: r.raw }));
          fs.renameSync(`${file}.tmp`, file);
        }
        for (const req of fs.readdirSync(hooksDir).filter((f) => f.endsWith('.req'))) {
          const eventId = req.slice('replay-'.length, -'.req'.length);
          fs.renameSync(path.join(hooksDir, req), path.join(hooksDir, `${req}.done`));
          const hook = receiver.received.find((r) => r.body.event_id === eventId);
          const tenant = [...tenants.values()].find((t) => hook?.path === `/${t.lang}`);
          if (tenant) await system.cli('replay-event', '--client', tenant.client.client_id, '--event-id', eventId);
        }
      })().finally(() => (busy = false));
    }, 100);
  });

  afterAll(async () => {
    clearInterval(pump);
    await proxy?.stop();
    await receiver?.stop();
    await system?.stop();
    if (hooksDir) fs.rmSync(hooksDir, { recursive: true, force: true });
  });

  /** A client of its own (its own 100 requests a minute), a simulated phone, and a webhook endpoint. */
  async function tenant(lang: string): Promise<Tenant> {
    const client = await system.createClient();
    const device = await system.createDevice(client.client_id, `phone-${lang}`);
    const agent = await system.startAgent(client, device);
    const endpoint = (await system.cli(
      'create-webhook',
      '--client',
      client.client_id,
      '--url',
      receiver.url(`/${lang}`),
      '--events',
      'sms.sent,sms.delivered,sms.failed',
    )) as {
      secret: string;
    };
    const t = { lang, client, device, agent, secret: endpoint.secret };
    tenants.set(lang, t);
    return t;
  }

  function scenarioEnv(t: Tenant): Record<string, string> {
    return {
      SMSGW_LANG: t.lang,
      SMSGW_BASE_URL: system.stack.gatewayUrl,
      SMSGW_PROXY_URL: proxy.url,
      SMSGW_API_KEY: t.client.live_api_key,
      SMSGW_TEST_API_KEY: t.client.test_api_key,
      SMSGW_CLIENT_ID: t.client.client_id,
      SMSGW_DEVICE_ID: t.device.device_id,
      SMSGW_CA_FILE: system.stack.certs.caCertFile,
      SMSGW_WEBHOOK_SECRET: t.secret,
      SMSGW_WEBHOOK_DIR: hooksDir,
      SMSGW_WEBHOOK_PATH: `/${t.lang}`,
    };
  }

  /** What every library's user must see; the same for the three. */
  async function expectScenario(t: Tenant, r: ScenarioReport): Promise<void> {
    const { lang, client, device, agent } = t;
    const requestId = expect.stringMatching(/.+/);
    expect(r.auth).toEqual({ mode: 'live', client_id: client.client_id, device_id: device.device_id });

    expect(r.single).toEqual({
      message_id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
      status: 'queued',
      to: '+33612345678',
      final_status: 'delivered',
    });
    expect(r.bulk).toMatchObject({
      batch_id: expect.stringMatching(/^batch_/),
      total_recipients: 3,
      statuses: ['queued', 'queued', 'queued'],
    });
    expect(r.personalized.texts).toEqual([`Bonjour Ana (${lang})`, `Bonjour Bo (${lang})`]);
    expect(r.scheduled).toEqual({
      message_id: expect.stringMatching(/^msg_/),
      status: 'queued',
      scheduled: true,
      cancel_status: 'cancelled',
      status_after: 'cancelled',
      cancel_again: { kind: 'conflict', status: 409, code: 'MESSAGE_NOT_CANCELLABLE', request_id: requestId, fields: expect.any(Array) },
    });

    // The retry after a lost answer: the same key twice, one message stored, one SMS sent.
    expect(r.retry).toEqual({
      message_id: expect.stringMatching(/^msg_/),
      idempotency_key: expect.stringMatching(UUID),
      attempts: 2,
      replayed: true,
      history_total: 1,
    });
    expect(proxy.sendsOf(client.client_id)).toEqual([
      expect.objectContaining({
        idempotencyKey: r.retry.idempotency_key,
        upstreamStatus: 200,
        replayed: false,
        answered: 503,
        upstreamBody: expect.objectContaining({ message_id: r.retry.message_id }),
      }),
      expect.objectContaining({
        idempotencyKey: r.retry.idempotency_key,
        upstreamStatus: 200,
        replayed: true,
        answered: 200,
        upstreamBody: expect.objectContaining({ message_id: r.retry.message_id }),
      }),
    ]);
    await system.waitForStatus(client, r.retry.message_id, 'delivered');
    expect(agent.sentCount(r.retry.message_id)).toBe(1);

    const sentIds = [r.single.message_id, ...r.bulk.message_ids, ...r.personalized.message_ids, r.scheduled.message_id, r.retry.message_id];
    expect(r.history.total_items).toBe(8);
    expect(r.history.ids).toHaveLength(8);
    expect([...r.history.ids].sort()).toEqual([...sentIds].sort());
    expect(r.history.ids[0]).toBe(r.retry.message_id);
    expect(r.history.ids.at(-1)).toBe(r.single.message_id);
    expect(r.history.page2).toEqual({ current_page: 2, per_page: 3, count: 3 });

    expect(r.otp).toEqual({
      otp_id: expect.stringMatching(/^otp_/),
      wrong: { valid: false, attempts_remaining: 2 },
      right: { valid: true },
      again: { kind: 'conflict', status: 409, code: 'OTP_ALREADY_VERIFIED', request_id: requestId, fields: [] },
    });

    expect(r.errors).toEqual({
      invalid_phone: { kind: 'invalid_request', status: 400, code: 'INVALID_PHONE_NUMBER', request_id: requestId, fields: ['to'] },
      not_found: { kind: 'not_found', status: 404, code: 'MESSAGE_NOT_FOUND', request_id: requestId, fields: [] },
      bad_key: { kind: 'authentication', status: 401, code: 'INVALID_API_KEY', request_id: requestId, fields: [] },
    });

    const delivered = receiver
      .at(`/${lang}`)
      .filter((h) => h.body.event === 'sms.delivered' && h.body.data.message_id === r.single.message_id);
    expect(r.webhook).toEqual({
      event: 'sms.delivered',
      event_id: delivered[0]!.body.event_id,
      message_id: r.single.message_id,
      duplicate: 'duplicate',
      tampered: 'signature',
      stale: 'timestamp',
    });
    expect(delivered.map((h) => h.body.event_id)).toEqual([r.webhook.event_id, r.webhook.event_id]);
  }

  it('when the TypeScript library runs the scenario, then sends, batches, scheduling, history pages, OTP, errors, a retry after a lost answer and a webhook check all behave as documented', async () => {
    const t = await tenant('ts');
    await expectScenario(t, await runScenario(scenarioEnv(t)));
  }, 180_000);

  it('when the Python library runs the same scenario, then its user sees the same', async () => {
    const t = await tenant('python');
    const run = await runProgram('python3', [path.join(REPO_ROOT, 'e2e/scenarios/python/scenario.py')], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PYTHONPATH: path.join(REPO_ROOT, 'clients/python/src'),
        PYTHONDONTWRITEBYTECODE: '1',
        ...scenarioEnv(t),
      },
    });
    await expectScenario(t, reportOf(run, 'the Python scenario'));
  }, 180_000);

  it("when the Go library runs the same scenario, then its user sees the same (built with the standard library and x/crypto's scrypt, pinned in go.sum)", async () => {
    const t = await tenant('go');
    const run = await runProgram('go', ['run', '.'], {
      cwd: path.join(REPO_ROOT, 'e2e/scenarios/go'),
      // The module's go.sum pins x/crypto: no checksum database is asked; the proxy only when the cache lacks it.
      env: { ...process.env, GOFLAGS: '-mod=mod', ...scenarioEnv(t) },
      timeoutMs: 240_000,
    });
    await expectScenario(t, reportOf(run, 'the Go scenario'));
  }, 300_000);

  describe('smsgw, the command line', () => {
    let t: Tenant;
    let home: string;
    const CLI = path.join(REPO_ROOT, 'packages/cli/dist/cli.js');
    const smsgw = (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
      runProgram(process.execPath, [CLI, ...args], {
        env: { PATH: process.env.PATH, HOME: home, ...options.env },
        stdin: options.stdin ?? '',
      });

    beforeAll(async () => {
      t = await tenant('cli');
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-cli-home-'));
    }, 60_000);
    afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

    it('when profiles are configured with the keys on standard input, then they are checked, saved readable by their owner only, and used by name', async () => {
      const common = [
        '--base-url',
        system.stack.gatewayUrl,
        '--client-id',
        t.client.client_id,
        '--ca-file',
        system.stack.certs.caCertFile,
        '--device',
        t.device.device_id,
      ];
      const wrong = await smsgw(['configure', '--profile', 'live', ...common], { stdin: 'sgw_live_notakey\n' });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('INVALID_API_KEY (HTTP 401)');
      const live = await smsgw(['configure', '--profile', 'live', ...common], { stdin: `${t.client.live_api_key}\n` });
      expect(live.stderr).toContain(`checked: client ${t.client.client_id}, live key, device ${t.device.device_id} online`);
      expect(live.code).toBe(0);
      expect((await smsgw(['configure', '--profile', 'test', ...common], { stdin: t.client.test_api_key })).code).toBe(0);
      const file = path.join(home, '.config/smsgw/config.json');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({
        profiles: { live: { api_key: t.client.live_api_key }, test: { api_key: t.client.test_api_key } },
      });
      const who = await smsgw(['whoami', '--profile', 'test', '--json']);
      expect(JSON.parse(who.stdout)).toMatchObject({ client_id: t.client.client_id, mode: 'test', device_id: t.device.device_id });
    });

    it('when a message is sent, then its status is followed by id, with the credentials of a profile or of the environment', async () => {
      const sent = await smsgw([
        'send',
        '--profile',
        'live',
        '--to',
        '+33612345678',
        '--message',
        'Bonjour (cli)',
        '--metadata',
        '{"order":"A-17"}',
        '--json',
      ]);
      expect(sent.code).toBe(0);
      const { message_id } = JSON.parse(sent.stdout) as { message_id: string };
      expect(message_id).toMatch(/^msg_/);
      await system.waitForStatus(t.client, message_id, 'delivered');
      const byProfile = await smsgw(['status', message_id, '--profile', 'live']);
      expect(byProfile.code).toBe(0);
      expect(byProfile.stdout).toMatch(/^status: +delivered$/m);
      expect(byProfile.stdout).toContain('metadata:     {"order":"A-17"}');
      const byEnv = await smsgw(['status', message_id, '--json'], {
        env: {
          HOME: os.tmpdir(),
          SMSGW_CONFIG: path.join(home, 'none.json'),
          SMSGW_API_KEY: t.client.live_api_key,
          SMSGW_CLIENT_ID: t.client.client_id,
          SMSGW_BASE_URL: system.stack.gatewayUrl,
          SMSGW_CA_FILE: system.stack.certs.caCertFile,
        },
      });
      expect(JSON.parse(byEnv.stdout)).toMatchObject({ message_id, status: 'delivered', to: '+33612345678' });
    });

    it('when a CSV of 151 rows has a bad number, then the other batch is queued and the line named; run again after the fix with the same key, only the refused batch is sent', async () => {
      const rows = Array.from({ length: 151 }, (_, i) => `+336${String(20_000_000 + i)}`);
      const file = path.join(home, 'campaign.csv');
      const write = (bad: boolean) => fs.writeFileSync(file, ['phone', ...rows.map((r, i) => (bad && i === 119 ? '12345' : r))].join('\n'));
      const args = [
        'send-bulk',
        '--profile',
        'live',
        '--csv',
        file,
        '--message',
        'Campagne (cli)',
        '--idempotency-key',
        `campaign-${Date.now()}`,
      ];

      write(true);
      const first = await smsgw(args);
      expect(first.code).toBe(1);
      expect(first.stderr).toMatch(/^batch 1\/2 queued \(batch_[0-9A-Z]{26}\): 100\/151 recipients$/m);
      expect(first.stderr).toMatch(/^batch 2\/2 refused: INVALID_PHONE_NUMBER: 100\/151 recipients$/m);
      expect(first.stdout).toContain('100 of 151 recipients queued in 1 batch(es).');
      expect(first.stdout).toMatch(/^batch 2 \(lines 102-152\) refused, nothing of it sent: INVALID_PHONE_NUMBER: .+ \(request .+\)$/m);
      expect(first.stdout).toMatch(/^ {2}line 121: 12345 INVALID_PHONE_NUMBER$/m);

      write(false);
      const second = await smsgw(args);
      expect(second.stderr).toMatch(/^batch 1\/2 already queued \(batch_/m);
      expect(second.stdout).toBe('151 of 151 recipients queued in 2 batch(es) (100 already queued by an earlier run, not sent again).\n');
      expect(second.code).toBe(0);

      const history = await smsgw(['history', '--profile', 'live', '--search', 'Campagne (cli)', '--limit', '1', '--json']);
      expect(JSON.parse(history.stdout)).toMatchObject({ pagination: { total_items: 151 } });
    });

    it('when the history is shown, then it is a table of the newest messages with a footer, or every page as JSON', async () => {
      const table = await smsgw(['history', '--profile', 'live', '--limit', '5']);
      expect(table.code).toBe(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^MESSAGE ID +STATUS +TO +CREATED +TEXT$/);
      expect(lines).toHaveLength(7);
      expect(lines[1]).toMatch(/^msg_[0-9A-Z]{26} +(queued|sent|delivered) +\+336\d+ +\d{4}-\d\d-\d\dT[\d:.]+Z +Campagne \(cli\)$/);
      expect(lines[6]).toBe('page 1 of 31 (152 message(s); --page 2 for more, --all for every page)');
      const all = await smsgw(['history', '--profile', 'live', '--all', '--json']);
      const items = JSON.parse(all.stdout) as { message_id: string }[];
      expect(items).toHaveLength(152);
      expect(new Set(items.map((m) => m.message_id)).size).toBe(152);
    });

    it('when an OTP is sent and checked with the test profile, then a wrong code exits 1 with the attempts left and the test code is valid', async () => {
      const sent = await smsgw(['otp', 'send', '--profile', 'test', '--to', '+33612345099', '--json']);
      expect(sent.code).toBe(0);
      const { otp_id } = JSON.parse(sent.stdout) as { otp_id: string };
      const wrong = await smsgw(['otp', 'verify', '--profile', 'test', '--otp-id', otp_id, '--code', '000000']);
      expect([wrong.code, wrong.stdout]).toEqual([1, 'wrong code: 2 attempt(s) remaining\n']);
      const right = await smsgw(['otp', 'verify', '--profile', 'test', otp_id, '123456']);
      expect(right.code).toBe(0);
      expect(right.stdout).toMatch(/^valid \(verified at \d{4}-.+\)$/m);
    });

    it('when the API refuses, a key is given as an argument or credentials are missing, then the exit status and message say which', async () => {
      const missing = await smsgw(['status', 'msg_00000000000000000000000000', '--profile', 'live']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^smsgw: MESSAGE_NOT_FOUND \(HTTP 404\): .+ \(request .+\)$/m);
      const keyArg = await smsgw(['send', '--api-key', t.client.live_api_key, '--to', '+33612345678', '--message', 'x']);
      expect(keyArg.code).toBe(2);
      expect(keyArg.stderr).toContain('never taken from the command line');
      expect(keyArg.stderr).not.toContain(t.client.live_api_key);
      const none = await smsgw(['history'], { env: { HOME: os.tmpdir(), SMSGW_CONFIG: path.join(home, 'none.json') } });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('missing SMSGW_API_KEY, SMSGW_CLIENT_ID, SMSGW_BASE_URL');
    });
  });

  it('when every scenario has run, then no phone sent any message twice', async () => {
    for (const t of tenants.values()) {
      await eventually(async () => (t.agent.sent.length > 0 ? true : undefined), 10_000, `${t.lang}'s phone to send`);
      const ids = t.agent.sent.map((s) => s.message_id);
      expect({ lang: t.lang, duplicates: ids.filter((id, i) => ids.indexOf(id) !== i) }).toEqual({ lang: t.lang, duplicates: [] });
    }
  });
});
