import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { openEnvelope, seal } from '@smsgw/client';
import { run } from '../src';

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
}

/** A stand-in for the gateway that answers with `answer` and records every request. */
async function fakeGateway(answer: (r: Seen, n: number) => { status: number; body: unknown; headers?: Record<string, string> }) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const r = {
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined,
      };
      seen.push(r);
      const a = answer(r, seen.length);
      res
        .writeHead(a.status, { 'content-type': 'application/json', 'x-request-id': `req-${seen.length}`, ...a.headers })
        .end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    seen,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function io(env: NodeJS.ProcessEnv, options: { stdin?: string; tty?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]) as Readable & { isTTY?: boolean };
  return {
    io: {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t), isTTY: options.tty, columns: 80 },
      stdin,
      env,
    },
    out: () => out.join(''),
    err: () => err.join(''),
  };
}

const batchAnswer = (r: Seen, n: number): { status: number; body: unknown; headers: Record<string, string> } => {
  const list = (r.body?.recipients as string[] | undefined) ?? (r.body?.messages as { to: string }[]).map((m) => m.to);
  return {
    status: 200,
    body: { success: true, batch_id: `batch_${n}`, total_recipients: list.length, queued_at: '2030-01-01T00:00:00Z', messages: [] },
    headers: n === 1 && r.headers['idempotency-key'] === 'camp-1' ? { 'idempotent-replayed': 'true' } : {},
  };
};

describe('the smsgw command line', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const csv = (name: string, rows: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${rows.join('\n')}\n`);
    return file;
  };
  const envFor = (url: string) => ({
    SMSGW_API_KEY: 'sgw_test_k',
    SMSGW_CLIENT_ID: 'client_1',
    SMSGW_BASE_URL: url,
    SMSGW_CONFIG: path.join(dir, 'config.json'),
  });

  it('when a CSV of 250 rows is sent, then it goes in batches of 100, 100 and 50 with progress lines on a non-terminal, and a summary', async () => {
    const gw = await fakeGateway(batchAnswer);
    try {
      const file = csv('list.csv', ['phone', ...Array.from({ length: 250 }, (_, i) => `+336${String(10_000_000 + i)}`)]);
      const t = io(envFor(gw.url));
      expect(await run(['send-bulk', '--csv', file, '--message', 'Bonjour', '--idempotency-key', 'camp'], t.io)).toBe(0);
      expect(gw.seen.map((r) => [r.path, (r.body!.recipients as string[]).length, r.body!.message, r.headers['idempotency-key']])).toEqual([
        ['/v1/sms/send-bulk', 100, 'Bonjour', 'camp-1'],
        ['/v1/sms/send-bulk', 100, 'Bonjour', 'camp-2'],
        ['/v1/sms/send-bulk', 50, 'Bonjour', 'camp-3'],
      ]);
      expect(t.err()).toBe(
        'batch 1/3 already queued (batch_1): 100/250 recipients\nbatch 2/3 queued (batch_2): 200/250 recipients\nbatch 3/3 queued (batch_3): 250/250 recipients\n',
      );
      expect(t.out()).toBe('250 of 250 recipients queued in 3 batch(es) (100 already queued by an earlier run, not sent again).\n');
    } finally {
      await gw.stop();
    }
  });

  it('when a CSV is sent with --passphrase-file, then every text leaves sealed with encrypted: true; with --encrypted, sealed texts go as they are', async () => {
    const gw = await fakeGateway(batchAnswer);
    try {
      const passphraseFile = path.join(dir, 'passphrase');
      fs.writeFileSync(passphraseFile, 'phrase secrète\n');
      const own = csv('own.csv', ['phone,message', '+33612345678,Rendez-vous jeudi', '+33612345679,']);
      const t = io(envFor(gw.url));
      expect(await run(['send-bulk', '--csv', own, '--message', 'Rappel', '--passphrase-file', passphraseFile], t.io)).toBe(0);
      const personalised = gw.seen[0]!.body!;
      expect(personalised.encrypted).toBe(true);
      const sent = personalised.messages as { to: string; message: string }[];
      expect(sent.map((m) => [m.to, openEnvelope(m.message, 'phrase secrète')])).toEqual([
        ['+33612345678', 'Rendez-vous jeudi'],
        ['+33612345679', 'Rappel'],
      ]);
      expect(JSON.stringify(gw.seen)).not.toContain('Rendez-vous');

      const envelope = seal('Déjà scellé', 'phrase secrète', { kdf: { ln: 10, r: 8, p: 1 } });
      // An envelope holds commas (ln=10,r=8,p=1): quoted, as any CSV writer does.
      const sealedFile = csv('sealed.csv', ['phone,message', `+33612345670,"${envelope}"`]);
      expect(await run(['send-bulk', '--csv', sealedFile, '--encrypted'], io(envFor(gw.url)).io)).toBe(0);
      expect(gw.seen[1]!.body).toMatchObject({ recipients: ['+33612345670'], message: envelope, encrypted: true });

      const both = io(envFor(gw.url));
      expect(await run(['send-bulk', '--csv', sealedFile, '--encrypted', '--passphrase-file', passphraseFile], both.io)).toBe(2);
      expect(both.err()).toContain('give one of the two');
    } finally {
      await gw.stop();
    }
  });

  it('when the terminal is a TTY, then the progress is one bar redrawn in place', async () => {
    const gw = await fakeGateway(batchAnswer);
    try {
      const file = csv('list.csv', ['phone', '+33612345678', '+33612345679', '+33612345670']);
      const t = io(envFor(gw.url), { tty: true });
      expect(await run(['send-bulk', '--csv', file, '--message', 'Bonjour', '--batch-size', '2'], t.io)).toBe(0);
      const frames = t.err().split('\r\x1b[2K').filter(Boolean);
      expect(frames).toHaveLength(2);
      expect(frames[0]).toMatch(/^\[█+░+\] 2\/3 recipients$/);
      expect(frames[1]).toMatch(/^\[█+\] 3\/3 recipients\n$/);
    } finally {
      await gw.stop();
    }
  });

  it('when rows have their own text, then they go as personalised batches, and a refused batch names its lines and makes the exit status 1', async () => {
    const gw = await fakeGateway((r, n) =>
      n === 1
        ? {
            status: 400,
            body: {
              success: false,
              error: {
                code: 'INVALID_PHONE_NUMBER',
                message: 'Numéro invalide',
                details: [{ field: 'messages[1].to', code: 'INVALID_PHONE_NUMBER' }],
              },
            },
          }
        : batchAnswer(r, n),
    );
    try {
      const file = csv('perso.csv', ['to,message', '+33612345678,Bonjour Ana', '12345,Bonjour Bo', '+33612345670,', '+33612345671,Salut']);
      const t = io(envFor(gw.url));
      expect(await run(['send-bulk', '--csv', file, '--message', 'Bonjour', '--batch-size', '2', '--json'], t.io)).toBe(1);
      expect(gw.seen[0]!.path).toBe('/v1/sms/send-bulk-personalized');
      expect(gw.seen[0]!.body!.messages).toEqual([
        { to: '+33612345678', message: 'Bonjour Ana' },
        { to: '12345', message: 'Bonjour Bo' },
      ]);
      expect(gw.seen[1]!.body!.messages).toEqual([
        { to: '+33612345670', message: 'Bonjour' },
        { to: '+33612345671', message: 'Salut' },
      ]);
      const summary = JSON.parse(t.out()) as Record<string, unknown>;
      expect(summary).toMatchObject({
        total: 4,
        queued: 2,
        refused: 2,
        not_sent: 0,
        batches: [
          {
            batch: 1,
            lines: [2, 3],
            error: {
              code: 'INVALID_PHONE_NUMBER',
              status: 400,
              request_id: 'req-1',
              lines: [{ line: 3, to: '12345', code: 'INVALID_PHONE_NUMBER' }],
            },
          },
          { batch: 2, lines: [4, 5], batch_id: 'batch_2', replayed: false },
        ],
      });
    } finally {
      await gw.stop();
    }
  });

  it('when the key is refused, then the remaining batches are not tried', async () => {
    const gw = await fakeGateway(() => ({
      status: 401,
      body: { success: false, error: { code: 'INVALID_API_KEY', message: 'Clé invalide' } },
    }));
    try {
      const file = csv('list.csv', ['phone', '+33612345678', '+33612345679']);
      const t = io(envFor(gw.url));
      expect(await run(['send-bulk', '--csv', file, '--message', 'x', '--batch-size', '1'], t.io)).toBe(1);
      expect(gw.seen).toHaveLength(1);
      expect(t.out()).toContain('1 recipients not tried (stopped after batch 1).');
    } finally {
      await gw.stop();
    }
  });

  it('when a file row is bad, then nothing is sent and the exit status is 2', async () => {
    const t = io(envFor('http://127.0.0.1:9'));
    expect(await run(['send-bulk', '--csv', csv('bad.csv', ['name,phone', '', 'Ana,', 'Bo,+33612345678']), '--message', 'x'], t.io)).toBe(
      2,
    );
    expect(t.err()).toContain('line 3: no number');
  });

  it('when an error comes back, then stderr has its code, details and status 1', async () => {
    const gw = await fakeGateway(() => ({
      status: 400,
      body: {
        success: false,
        error: { code: 'INVALID_PHONE_NUMBER', message: 'Numéro invalide', details: [{ field: 'to', code: 'INVALID_PHONE_NUMBER' }] },
      },
    }));
    try {
      const t = io(envFor(gw.url));
      expect(await run(['send', '--to', '12345', '--message', 'x', '--metadata', '{"a":1}'], t.io)).toBe(1);
      expect(t.err()).toBe('smsgw: INVALID_PHONE_NUMBER (HTTP 400): Numéro invalide (request req-1)\n  to: INVALID_PHONE_NUMBER\n');
      expect(gw.seen[0]!.body).toEqual({ to: '12345', message: 'x', metadata: { a: 1 } });
    } finally {
      await gw.stop();
    }
  });

  it('when the history is asked for, then it prints a table with a footer, or the page as JSON', async () => {
    const page = {
      success: true,
      data: [
        {
          message_id: 'msg_1',
          status: 'delivered',
          to: '+33612345678',
          message: 'Bonjour\nà tous, ceci est un message assez long pour être coupé',
          created_at: '2030-01-01T00:00:00.000Z',
        },
        { message_id: 'msg_22', status: 'queued', to: '+33612345679', message: 'Salut', created_at: '2030-01-01T00:00:01.000Z' },
      ],
      pagination: { current_page: 1, per_page: 2, total_pages: 3, total_items: 5 },
    };
    const gw = await fakeGateway(() => ({ status: 200, body: page }));
    try {
      const t = io(envFor(gw.url));
      expect(await run(['history', '--limit', '2', '--status', 'delivered'], t.io)).toBe(0);
      expect(gw.seen[0]!.path).toBe('/v1/sms/history?status=delivered&limit=2&page=1');
      expect(t.out()).toBe(
        [
          'MESSAGE ID  STATUS     TO            CREATED                   TEXT',
          'msg_1       delivered  +33612345678  2030-01-01T00:00:00.000Z  Bonjour à tous, ceci est un message ass…',
          'msg_22      queued     +33612345679  2030-01-01T00:00:01.000Z  Salut',
          'page 1 of 3 (5 message(s); --page 2 for more, --all for every page)',
          '',
        ].join('\n'),
      );
      const j = io(envFor(gw.url));
      expect(await run(['history', '--json'], j.io)).toBe(0);
      expect(JSON.parse(j.out())).toEqual(page);
    } finally {
      await gw.stop();
    }
  });

  it('when a key is given as an argument, then it is refused with the reason; an unknown command or option is a usage error', async () => {
    for (const args of [
      ['send', '--api-key', 'sgw_live_x'],
      ['history', '--api-key=sgw_live_x'],
      ['whoami', '--token', 'x'],
    ]) {
      const t = io({});
      expect(await run(args, t.io)).toBe(2);
      expect(t.err()).toMatch(/never taken from the command line/);
    }
    const t = io({});
    expect(await run(['launch'], t.io)).toBe(2);
    expect(t.err()).toMatch(/unknown command "launch"/);
    const u = io({});
    expect(await run(['status', 'msg_1', '--colour'], u.io)).toBe(2);
    expect(u.err()).toMatch(/--colour/);
  });

  it('when configure reads the key from standard input, then it checks it and saves the profile readable by its owner only', async () => {
    const gw = await fakeGateway((r) =>
      r.headers['x-api-key'] === 'sgw_test_good'
        ? {
            status: 200,
            body: { success: true, message: 'ok', client_id: 'client_1', device_id: 'device_1', device_status: 'online', mode: 'test' },
          }
        : { status: 401, body: { success: false, error: { code: 'INVALID_API_KEY', message: 'Clé invalide' } } },
    );
    try {
      const env = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg') };
      const bad = io(env, { stdin: 'sgw_test_bad\n' });
      expect(await run(['configure', '--profile', 'ci', '--base-url', gw.url, '--client-id', 'client_1'], bad.io)).toBe(1);
      expect(fs.existsSync(path.join(dir, 'cfg/smsgw/config.json'))).toBe(false);
      const good = io(env, { stdin: '\nsgw_test_good\n' });
      expect(await run(['configure', '--profile', 'ci', '--base-url', gw.url, '--client-id', 'client_1'], good.io)).toBe(0);
      const file = path.join(dir, 'cfg/smsgw/config.json');
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
        profiles: { ci: { base_url: gw.url, client_id: 'client_1', api_key: 'sgw_test_good' } },
      });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(good.err()).toContain('checked: client client_1, test key, device device_1 online');
      const who = io(env);
      expect(await run(['whoami', '--profile', 'ci'], who.io)).toBe(0);
      expect(who.out()).toContain('mode:          test');
    } finally {
      await gw.stop();
    }
  });

  it('when OTP statistics are asked, then the filters go in the query and the totals, days and countries are printed', async () => {
    const gw = await fakeGateway(() => ({
      status: 200,
      body: {
        success: true,
        period: { from: '2030-01-01T00:00:00.000Z', to: '2030-01-31T23:59:59.999Z' },
        stats: {
          sent: 4,
          verified: 2,
          expired: 1,
          failed_attempts: 3,
          conversion_rate: 50,
          by_day: [{ date: '2030-01-02', sent: 4, verified: 2 }],
          by_country: [
            { country: 'FR', sent: 3, verified: 2 },
            { country: 'BE', sent: 1, verified: 0 },
          ],
        },
      },
    }));
    try {
      const t = io(envFor(gw.url));
      expect(await run(['otp', 'stats', '--from-date', '2030-01-01', '--device', 'device_A'], t.io)).toBe(0);
      expect(gw.seen[0]!.path).toBe('/v1/otp/stats?from_date=2030-01-01&device_id=device_A');
      expect(t.out()).toContain('4 sent, 2 verified, 1 expired, 3 wrong codes, 50% converted');
      expect(t.out()).toMatch(/COUNTRY\s+SENT\s+VERIFIED\nFR\s+3\s+2\nBE\s+1\s+0/);
    } finally {
      await gw.stop();
    }
  });

  it('when an OTP is sent with an end-user key and a fallback delay, then both go in the body', async () => {
    const gw = await fakeGateway(() => ({
      status: 200,
      body: {
        success: true,
        otp_id: 'otp_1',
        to: '+33612345678',
        expires_at: '2030-01-01T00:05:00.000Z',
        message_id: 'msg_1',
        status: 'queued',
      },
    }));
    try {
      const t = io(envFor(gw.url));
      expect(await run(['otp', 'send', '--to', '+33612345678', '--end-user-key', '203.0.113.7', '--fallback-after', '30'], t.io)).toBe(0);
      expect(gw.seen[0]!.body).toEqual({ to: '+33612345678', end_user_key: '203.0.113.7', fallback_after: 30 });
    } finally {
      await gw.stop();
    }
  });

  it('when an OTP code is wrong, then the exit status is 1 and the attempts left are printed', async () => {
    const gw = await fakeGateway(() => ({
      status: 200,
      body: { success: true, valid: false, message: 'Code incorrect', attempts_remaining: 2 },
    }));
    try {
      const t = io(envFor(gw.url));
      expect(await run(['otp', 'verify', 'otp_1', '000000'], t.io)).toBe(1);
      expect(t.out()).toBe('wrong code: 2 attempt(s) remaining\n');
      expect(gw.seen[0]!.body).toEqual({ otp_id: 'otp_1', code: '000000' });
    } finally {
      await gw.stop();
    }
  });
});
