import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './support/http';
import { TestSystem, type DemoClient, type DemoDevice } from './support/system';

// `smsgw inbox` against the whole stack: the received SMS of the account, paged as `history` is,
// the ones a phone sealed with its end-to-end passphrase opened by --passphrase-file.

const execute = promisify(execFile);
const REPO_ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(REPO_ROOT, 'packages/cli/dist/cli.js');
const PASSPHRASE = 'la phrase du propriétaire du téléphone';
const SEALED_TEXT = 'Le colis 4412 est arrivé à l’accueil';
const CLEAR_TEXT = 'Bonjour, message en clair';

describe('smsgw inbox', () => {
  let system: TestSystem;
  let client: DemoClient;
  let sealing: DemoDevice;
  let dir: string;

  const smsgw = async (...args: string[]) => {
    const { stdout } = await execute(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH,
        SMSGW_API_KEY: client.live_api_key,
        SMSGW_CLIENT_ID: client.client_id,
        SMSGW_BASE_URL: system.stack.gatewayUrl,
        SMSGW_CA_FILE: system.stack.certs.caCertFile,
      },
    });
    return stdout;
  };

  const receive = (device: DemoDevice, from: string, text: string) =>
    system.cli('receive-sms', '--client', client.client_id, '--device', device.device_id, '--from', from, '--text', text);

  beforeAll(async () => {
    system = await TestSystem.shared();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-cli-inbox-'));
    fs.writeFileSync(path.join(dir, 'passphrase'), `${PASSPHRASE}\n`);
    fs.writeFileSync(path.join(dir, 'wrong'), 'une autre phrase\n');
    client = await system.createClient();
    sealing = await system.createDevice(client.client_id, 'sealing');
    const clear = await system.createDevice(client.client_id, 'clear');
    await system.startAgent(client, sealing, { extraArgs: ['--passphrase-file', path.join(dir, 'passphrase')] });
    await system.startAgent(client, clear);
    await receive(clear, '+33611112222', CLEAR_TEXT);
    await eventually(
      async () => ((await system.api('/v1/sms/inbox', client)).body.data as unknown[] | undefined)?.length === 1 || undefined,
      20_000,
      'the clear SMS in the inbox',
      500,
    );
    await receive(sealing, '+33633334444', SEALED_TEXT);
    await eventually(
      async () => ((await system.api('/v1/sms/inbox', client)).body.data as unknown[] | undefined)?.length === 2 || undefined,
      20_000,
      'both SMS in the inbox',
      500,
    );
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('when the inbox is listed with the passphrase file, then the table shows both texts in clear, newest first, with a footer', async () => {
    const out = await smsgw('inbox', '--passphrase-file', path.join(dir, 'passphrase'));
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+FROM\s+SIM\s+RECEIVED\s+TEXT$/);
    expect(lines[1]).toContain('+33633334444');
    expect(lines[1]).toContain(SEALED_TEXT);
    expect(lines[2]).toContain('+33611112222');
    expect(lines[2]).toContain(CLEAR_TEXT);
    expect(lines.at(-1)).toBe('page 1 of 1 (2 SMS)');
    expect(out).not.toContain('$smsgw-e2e$');
  });

  it('when the inbox is listed without the passphrase or with another, then the sealed SMS shows as its envelope or as not opening', async () => {
    const raw = JSON.parse(await smsgw('inbox', '--json', '--from', '+33633334444')) as { data: Record<string, unknown>[] };
    expect(raw.data).toHaveLength(1);
    expect(raw.data[0]).toMatchObject({ from: '+33633334444', encrypted: true });
    expect(String(raw.data[0]!.message).startsWith('$smsgw-e2e$v1$')).toBe(true);
    const opened = JSON.parse(
      await smsgw('inbox', '--json', '--from', '+33633334444', '--passphrase-file', path.join(dir, 'passphrase')),
    ) as {
      data: Record<string, unknown>[];
    };
    expect(opened.data[0]!.message).toBe(SEALED_TEXT);
    const wrong = await smsgw('inbox', '--from', '+33633334444', '--passphrase-file', path.join(dir, 'wrong'));
    expect(wrong).toContain('[does not open with this passphrase]');
  });

  it('when the inbox is paged, then --limit and --page walk it and --all reads every page', async () => {
    const second = await smsgw('inbox', '--limit', '1', '--page', '2');
    expect(second).toContain(CLEAR_TEXT);
    expect(second.trim().split('\n').at(-1)).toBe('page 2 of 2 (2 SMS)');
    const first = await smsgw('inbox', '--limit', '1');
    expect(first.trim().split('\n').at(-1)).toBe('page 1 of 2 (2 SMS; --page 2 for more, --all for every page)');
    const all = JSON.parse(await smsgw('inbox', '--all', '--limit', '1', '--json', '--passphrase-file', path.join(dir, 'passphrase'))) as {
      message: string;
    }[];
    expect(all.map((sms) => sms.message)).toEqual([SEALED_TEXT, CLEAR_TEXT]);
  });
});
