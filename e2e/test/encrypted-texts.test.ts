import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { chromium } from 'playwright-core';
import { openEnvelope, seal } from '@smsgw/client';
import { eventually } from './support/http';
import { pair, rawPhone } from './support/raw-phone';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// End-to-end encrypted texts (issue 42, docs/api/encryption.md): the platform stores, queues and
// logs the envelope only; the phone holding the passphrase opens it and sends the plain text, one
// holding another fails it DECRYPTION_FAILED; a phone with a passphrase seals what it receives, which
// each client library opens; an encrypted STOP still opts its sender out (the phone matched it).

const run = promisify(execFile);
const REPO_ROOT = path.resolve(__dirname, '../..');
const PASSPHRASE = 'une phrase que seuls le client et le téléphone connaissent';
const SENT_TEXT = 'Rendez-vous confidentiel jeudi 14h30 salle Lavoisier';
const RECEIVED_TEXT = 'Réponse confidentielle : le colis 7781 est arrivé';

function pgDumpBinary(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((v) => path.join(root, v, 'bin/pg_dump')).find((p) => fs.existsSync(p)) ?? 'pg_dump';
}

describe('end-to-end encrypted texts', () => {
  let system: TestSystem;
  let client: DemoClient;
  let device: DemoDevice;
  let dir: string;
  let bus: NatsConnection;
  const carried: string[] = [];

  beforeAll(async () => {
    system = await TestSystem.shared();
    bus = await connect({ servers: system.stack.natsUrl, user: system.stack.natsAdmin?.user, pass: system.stack.natsAdmin?.password });
    bus.subscribe(`${system.stack.natsPrefix}.>`, {
      callback: (_err, msg) => {
        carried.push(`${msg.subject} ${new TextDecoder().decode(msg.data)}`);
      },
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-e2ee-'));
    fs.writeFileSync(path.join(dir, 'right'), `${PASSPHRASE}\n`);
    fs.writeFileSync(path.join(dir, 'wrong'), 'une autre phrase\n');
    client = await system.createClient();
    device = await system.createDevice(client.client_id, 'encrypting');
  });

  afterAll(async () => {
    await bus?.close();
    await system?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when an encrypted text is sent, then the phone with the passphrase sends its plain text, the API shows only the envelope, and a phone with another passphrase fails it DECRYPTION_FAILED', async () => {
    const agent = await system.startAgent(client, device, { extraArgs: ['--log-json', '--passphrase-file', path.join(dir, 'right')] });
    const envelope = seal(SENT_TEXT, PASSPHRASE);
    const sent = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: envelope, encrypted: true } });
    expect(sent.status).toBe(200);
    const id = String(sent.body.message_id);
    const delivered = await system.waitForStatus(client, id, 'delivered');
    expect(delivered).toMatchObject({ message: envelope, encrypted: true });
    expect(agent.sent.filter((s) => s.message_id === id).map((s) => s.text)).toEqual([SENT_TEXT]);

    // A clear text with the envelope's prefix, or an envelope without the flag, is refused.
    const unflagged = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: envelope } });
    expect(unflagged.status).toBe(400);
    const notEnvelope = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: 'en clair', encrypted: true } });
    expect(notEnvelope.status).toBe(400);

    const other = await system.createClient();
    const otherDevice = await system.createDevice(other.client_id, 'wrong passphrase');
    await system.startAgent(other, otherDevice, { extraArgs: ['--passphrase-file', path.join(dir, 'wrong')] });
    const refused = await system.api('/v1/sms/send', other, {
      body: { to: '+33612345678', message: seal('pour un autre', PASSPHRASE), encrypted: true },
    });
    const failed = await system.waitForStatus(other, String(refused.body.message_id), 'failed');
    expect(failed).toMatchObject({ error: { code: 'DECRYPTION_FAILED' } });
  }, 90_000);

  it('when the only phone speaks protocol 5, then the hub never hands it an envelope: the message fails DECRYPTION_FAILED, a clear one is handed', async () => {
    const old = await system.createClient();
    const oldDevice = await system.createDevice(old.client_id, 'protocol 5');
    const token = await pair(system.stack.hubUrl, system.stack.certs.caPem, old.client_id, oldDevice.device_password);
    const phone = await rawPhone(system.stack.hubUrl, system.stack.certs.caPem, token);
    try {
      await phone.next('hello');
      phone.send({ type: 'agent_hello', protocol: 5, driver: 'android', sims: [] });
      const encrypted = await system.api('/v1/sms/send', old, {
        body: { to: '+33612345678', message: seal('pas pour toi', PASSPHRASE), encrypted: true },
      });
      const failed = await system.waitForStatus(old, String(encrypted.body.message_id), 'failed');
      expect(failed).toMatchObject({ error: { code: 'DECRYPTION_FAILED' } });
      const clear = await system.api('/v1/sms/send', old, { body: { to: '+33612345678', message: 'en clair' } });
      const handed = await phone.next('sms');
      expect(handed).toMatchObject({ message_id: clear.body.message_id, text: 'en clair' });
      expect(phone.waiting('sms')).toEqual([]);
    } finally {
      await phone.close();
    }
  }, 60_000);

  it('when the phone receives an SMS, then the inbox carries its envelope, flagged, which the TypeScript, Python and Go libraries open; an encrypted STOP opts the sender out', async () => {
    await system.cli(
      'receive-sms',
      '--client',
      client.client_id,
      '--device',
      device.device_id,
      '--from',
      '+33698765432',
      '--text',
      RECEIVED_TEXT,
    );
    const item = await eventually(
      async () => {
        const res = await system.api('/v1/sms/inbox?from=%2B33698765432', client);
        return (res.body.data as Record<string, unknown>[] | undefined)?.[0];
      },
      20_000,
      'the received SMS in the inbox',
      500,
    );
    expect(item).toMatchObject({ encrypted: true });
    const envelope = String(item.message);
    expect(envelope.startsWith('$smsgw-e2e$v1$')).toBe(true);
    expect(openEnvelope(envelope, PASSPHRASE)).toBe(RECEIVED_TEXT);

    const py = await run('python3', [
      '-c',
      'import sys; sys.path.insert(0, sys.argv[1]); from smsgw import envelope; print(envelope.open_envelope(sys.argv[2], sys.argv[3]), end="")',
      path.join(REPO_ROOT, 'clients/python/src'),
      envelope,
      PASSPHRASE,
    ]);
    expect(py.stdout).toBe(RECEIVED_TEXT);

    const goDir = path.join(dir, 'go-open');
    fs.mkdirSync(goDir);
    fs.writeFileSync(
      path.join(goDir, 'go.mod'),
      `module opentest\n\ngo 1.23.0\n\nrequire github.com/smsgw/smsgw-go v0.0.0\n\nreplace github.com/smsgw/smsgw-go => ${path.join(REPO_ROOT, 'clients/go')}\n`,
    );
    fs.copyFileSync(path.join(REPO_ROOT, 'clients/go/go.sum'), path.join(goDir, 'go.sum'));
    fs.writeFileSync(
      path.join(goDir, 'main.go'),
      'package main\n\nimport (\n\t"fmt"\n\t"os"\n\n\tsmsgw "github.com/smsgw/smsgw-go"\n)\n\nfunc main() {\n\ttext, err := smsgw.OpenEnvelope(os.Args[1], os.Args[2])\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tfmt.Print(text)\n}\n',
    );
    const go = await run('go', ['run', '-mod=mod', '.', envelope, PASSPHRASE], { cwd: goDir, timeout: 180_000 });
    expect(go.stdout).toBe(RECEIVED_TEXT);

    await system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', '+33644444444', '--text', 'Stop');
    const listed = await eventually(
      async () => {
        const res = await system.api('/v1/opt-outs', client);
        const data = res.body.data as Record<string, unknown>[];
        return data.length > 0 ? data : undefined;
      },
      20_000,
      'the sender on the suppression list',
      500,
    );
    expect(listed).toEqual([expect.objectContaining({ phone_number: '+33644444444', source: 'keyword', keyword: 'STOP' })]);
  }, 240_000);

  it('when the owner opens the conversation in the dashboard and types the passphrase, then Chromium decrypts the received SMS and no request carries the passphrase', async () => {
    const email = `e2ee${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const owner = await system.admin.createUser(email, password, 'Cabinet');
    const ownerDevice = await system.createDevice(owner.client_id, 'cabinet');
    await system.startAgent(owner, ownerDevice, { extraArgs: ['--passphrase-file', path.join(dir, 'right')] });
    await system.cli(
      'receive-sms',
      '--client',
      owner.client_id,
      '--device',
      ownerDevice.device_id,
      '--from',
      '+33611223344',
      '--text',
      RECEIVED_TEXT,
    );
    await eventually(
      async () => ((await system.api('/v1/sms/inbox', owner)).body.data as unknown[]).length > 0 || undefined,
      20_000,
      'the received SMS',
      500,
    );
    const spki = new X509Certificate(system.stack.certs.certPem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    });
    try {
      const page = await (await browser.newContext({ baseURL: system.stack.dashboardUrl })).newPage();
      page.setDefaultTimeout(15_000);
      const requests: string[] = [];
      page.on('request', (r) => requests.push(`${r.url()} ${r.postData() ?? ''}`));
      await page.goto('/signin');
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel(/^Password/).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.goto(`/inbox/${encodeURIComponent('+33611223344')}`);
      const text = page.locator('[data-line="in"] [data-envelope]');
      expect(await text.textContent()).toMatch(/^\$smsgw-e2e\$v1\$/);
      await page.getByLabel('Passphrase of the encrypted texts').fill('une autre phrase');
      await page.getByRole('button', { name: 'Decrypt in this browser' }).click();
      await page.locator('[data-envelope="closed"]').waitFor();
      await page.getByLabel('Passphrase of the encrypted texts').fill(PASSPHRASE);
      await page.getByRole('button', { name: 'Decrypt in this browser' }).click();
      await page.locator('[data-envelope="opened"]').waitFor();
      expect(await text.textContent()).toBe(RECEIVED_TEXT);
      expect(requests.filter((r) => r.includes(PASSPHRASE) || r.includes(encodeURIComponent(PASSPHRASE)))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('when the texts went through the whole stack, then neither plain text is in any schema, any JetStream stream, or any service log', async () => {
    const { stdout: dump } = await run(pgDumpBinary(), ['--no-owner', system.stack.databaseUrl], { maxBuffer: 256 * 1024 * 1024 });
    expect(dump).toContain('$smsgw-e2e$v1$');
    const nc = await connect({ servers: system.stack.natsUrl, user: system.stack.natsAdmin?.user, pass: system.stack.natsAdmin?.password });
    const streamed: string[] = [];
    try {
      const jsm = await jetstreamManager(nc);
      for await (const name of jsm.streams.names()) {
        if (!name.startsWith(`${system.stack.natsPrefix.toUpperCase()}_`)) continue;
        const info = await jsm.streams.info(name);
        for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
          const stored = await jsm.streams.getMessage(name, { seq }).catch(() => null);
          if (stored) streamed.push(`${stored.subject} ${new TextDecoder().decode(stored.data)}`);
        }
      }
    } finally {
      await nc.close();
    }
    await bus.flush();
    const logDir = system.stack.logDir;
    const serviceLogs = fs
      .readdirSync(logDir)
      .filter((f) => f.endsWith('.log') && !f.startsWith('agent'))
      .map((f): [string, string] => [f, fs.readFileSync(path.join(logDir, f), 'utf8')]);
    expect(serviceLogs.map(([f]) => f)).toEqual(expect.arrayContaining(['gateway.log', 'message.log', 'device-hub.log', 'webhook.log']));
    const places: [string, string][] = [['pg_dump', dump], ['jetstream', streamed.join('\n')], ...serviceLogs];
    // Everything published on NATS too, for the sent text (the received one reached the phone as the operator's simulation order).
    const leaks: string[] = [];
    for (const [where, content] of [...places, ['nats', carried.join('\n')] as [string, string]])
      if (content.includes(SENT_TEXT)) leaks.push(`sent text in ${where}`);
    for (const [where, content] of places) if (content.includes(RECEIVED_TEXT)) leaks.push(`received text in ${where}`);
    expect(streamed.join('\n')).toContain('$smsgw-e2e$v1$');
    expect(leaks).toEqual([]);
  });
});
