import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@smsgw/stack';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// `smsgw listen --forward` (issue 25): the real events of a real SMS, from the webhook service
// through NATS and the gateway's stream, verified by the command line and posted to a local
// receiver that checks them with the secret the command printed.

const CLI = path.join(REPO_ROOT, 'packages/cli/dist/cli.js');

describe('smsgw listen against the whole system', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let client: DemoClient;
  let device: DemoDevice;
  let home: string;
  let child: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';

  beforeAll(async () => {
    system = await TestSystem.shared();
    receiver = await Receiver.start(system.stack.certs);
    client = await system.createClient();
    device = await system.createDevice(client.client_id, 'phone-listen');
    await system.startAgent(client, device);
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-listen-home-'));
  });

  afterAll(async () => {
    child?.kill('SIGKILL');
    await receiver?.stop();
    await system?.stop();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('when a message is sent while smsgw listen --forward runs, then its sms.sent and sms.delivered reach the local receiver signed with the printed secret, and Ctrl-C ends it with 0', async () => {
    child = spawn(process.execPath, [CLI, 'listen', '--events', 'sms.sent,sms.delivered', '--forward', receiver.url('/local')], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        SMSGW_API_KEY: client.live_api_key,
        SMSGW_CLIENT_ID: client.client_id,
        SMSGW_BASE_URL: system.stack.gatewayUrl,
        SMSGW_CA_FILE: system.stack.certs.caCertFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.on('close', (code) => resolve(code)));

    await eventually(async () => stderr.includes('Ready:') || undefined, 20_000, `smsgw listen ready (stderr: ${stderr})`);
    const secret = /Signing secret: (whsec_\S+)/.exec(stderr)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(stderr).toContain(`Ready: live events sms.sent, sms.delivered, forwarded to ${receiver.url('/local')}`);

    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': device.device_id },
      body: { to: '+33612345678', message: 'Bonjour (listen)' },
    });
    expect(sent.status).toBe(200);
    const messageId = String(sent.body.message_id);
    await system.waitForStatus(client, messageId, 'delivered');
    const hooks = await receiver.waitFor('/local', 2, 20_000);

    expect(hooks.map((h) => h.body.event)).toEqual(['sms.sent', 'sms.delivered']);
    for (const hook of hooks) {
      expect(hook.headers['x-webhook-signature']).toBe(createHmac('sha256', secret!).update(hook.raw, 'utf8').digest('hex'));
      expect(hook.headers['x-webhook-event']).toBe(hook.body.event);
      expect(hook.headers['x-webhook-event-id']).toBe(hook.body.event_id);
      expect(hook.headers['content-type']).toBe('application/json');
      expect(Object.keys(hook.body)).toEqual(['event', 'event_id', 'timestamp', 'data']);
      expect(hook.body.data).toMatchObject({ message_id: messageId, to: '+33612345678' });
      expect(Math.abs(Date.now() - Date.parse(hook.body.timestamp))).toBeLessThan(60_000);
    }
    await eventually(async () => (stdout.match(/-> \S+ 200/g) ?? []).length >= 2 || undefined, 5000, 'the forwarded answers printed');
    expect(stdout).toMatch(new RegExp(`sms\\.sent +evt_\\S+ +${messageId} sent`));
    expect(stdout).toMatch(new RegExp(`sms\\.delivered +evt_\\S+ +${messageId} delivered`));
    expect(stderr).not.toMatch(/failed its check/);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    child = undefined;
  }, 120_000);

  it('when the key of an open stream is revoked, then the stream gets closed with INVALID_API_KEY within 10 s, and smsgw listen stops with that error', async () => {
    const other = await system.createClient();
    // A program reading the stream itself, and the command line, on the same key.
    let raw = '';
    let ended = false;
    const stream = https.get(
      `${system.stack.gatewayUrl}/v1/events/listen`,
      { ca: system.stack.certs.caPem, headers: { 'x-api-key': other.live_api_key, 'x-client-id': other.client_id } },
      (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.on('data', (c: string) => (raw += c));
        res.on('close', () => (ended = true));
      },
    );
    stream.on('error', () => (ended = true));
    let err = '';
    const cli = spawn(process.execPath, [CLI, 'listen'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        SMSGW_API_KEY: other.live_api_key,
        SMSGW_CLIENT_ID: other.client_id,
        SMSGW_BASE_URL: system.stack.gatewayUrl,
        SMSGW_CA_FILE: system.stack.certs.caCertFile,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cli.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => cli.on('close', (code) => resolve(code)));
    try {
      await eventually(async () => err.includes('Ready:') || undefined, 20_000, `smsgw listen ready (stderr: ${err})`);
      await eventually(async () => raw.includes('event: ready') || undefined, 10_000, 'the raw stream ready');

      const revokedAt = Date.now();
      await system.admin.revokeKey(other.live_api_key);

      await eventually(async () => err.includes('stream lost') || undefined, 10_000, `the stream closed (stderr: ${err})`);
      expect(Date.now() - revokedAt).toBeLessThan(10_000);
      expect(await exited).toBe(1);
      expect(err).toMatch(/smsgw: INVALID_API_KEY \(HTTP 401\)/);
      await eventually(async () => ended || undefined, 5000, 'the raw stream ended');
      expect(raw).toMatch(/event: closed\ndata: \{"code":"INVALID_API_KEY","message":"[^"]+"\}/);
    } finally {
      cli.kill('SIGKILL');
      stream.destroy();
    }
  }, 60_000);
});
