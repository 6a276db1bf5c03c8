import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { checkWebhookUrl, classifyAddress, parseWebhookUrl, safePost, trustingAlso, type Resolver } from '../src';

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl for this run. */
function selfSigned(): { cert: string; key: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'net-guard-'));
  const [certFile, keyFile] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile,
  ], { stdio: 'ignore' });
  const out = { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

interface Seen {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function server(tls: { cert: string; key: string }, answer: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const seen: Seen[] = [];
  const srv = https.createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(req, res);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as AddressInfo).port;
  return {
    port,
    seen,
    close: () => {
      srv.closeAllConnections();
      return new Promise<void>((r) => srv.close(() => r()));
    },
  };
}

const fixed =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  };

describe('address policy', () => {
  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['2a00:1450:4007:80e::200e', true],
    ['127.0.0.1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.32.0.1', true],
    ['192.168.0.10', 'private'],
    ['100.64.1.1', 'cgnat'],
    ['100.128.0.1', true],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::7f00:1', 'ipv4-compatible'],
    ['64:ff9b::808:808', 'nat64'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'not global unicast'],
    ['not-an-ip', 'not an IP address'],
  ])('when %s is classified, then it is %s', (address, expected) => {
    const verdict = classifyAddress(address);
    if (expected === true) expect(verdict).toEqual({ public: true });
    else expect(verdict).toEqual({ public: false, reason: expected });
  });
});

describe('webhook URL checks', () => {
  const resolver = fixed({
    'hooks.example': ['93.184.216.34'],
    'internal.example': ['127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'mixed.example': ['93.184.216.34', '10.0.0.5'],
    'v6.example': ['::1'],
  });

  // Every one of these is refused when private addresses are not allowed.
  it.each([
    'https://127.0.0.1/hook',
    'https://127.0.0.2:8443/hook',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://172.31.255.255/',
    'https://192.168.1.1/',
    'https://0.0.0.0/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://198.18.0.1/',
    'https://2130706433/',
    'https://0x7f000001/',
    'https://0177.0.0.1/',
    'https://0x7f.0.0.1/',
    'https://127.1/',
    'https://017700000001/',
    'https://0x0a.0x00.0x00.0x01/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:a00:1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[2002:7f00:1::1]/',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'https://[ff02::1]/',
    'https://localhost/',
    'https://localhost.:8443/',
    'https://internal.example/',
    'https://metadata.example/',
    'https://mixed.example/',
    'https://v6.example/',
    'https://unknown.example/',
    'http://hooks.example/',
    'https://user:pw@hooks.example/',
    'ftp://hooks.example/',
    'not a url',
    `https://hooks.example/${'a'.repeat(2100)}`,
  ])('when %s is checked, then it is refused', async (url) => {
    const reason = await checkWebhookUrl(url, { allowPrivate: false, resolver });
    expect(typeof reason).toBe('string');
    expect(reason!.length).toBeGreaterThan(0);
  });

  it('when a public address or a name with only public addresses is checked, then it is allowed', async () => {
    await expect(checkWebhookUrl('https://93.184.216.34/hook', { allowPrivate: false, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://hooks.example:8443/hook?x=1', { allowPrivate: false, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://[2606:4700:4700::1111]/', { allowPrivate: false, resolver })).resolves.toBeUndefined();
  });

  it('when private addresses are allowed (development), then loopback passes but plain HTTP and credentials still do not', async () => {
    await expect(checkWebhookUrl('https://127.0.0.1:9443/hook', { allowPrivate: true, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('https://internal.example/', { allowPrivate: true, resolver })).resolves.toBeUndefined();
    await expect(checkWebhookUrl('http://127.0.0.1/', { allowPrivate: true, resolver })).resolves.toBe('the URL must be HTTPS');
    await expect(checkWebhookUrl('https://a:b@127.0.0.1/', { allowPrivate: true, resolver })).resolves.toBe('credentials in the URL are not allowed');
  });

  it('when a numeric host is written in another base, then the WHATWG parser gives the address that is checked', () => {
    for (const url of ['https://2130706433/', 'https://0x7f.1/', 'https://0177.0.0.1/', 'https://127.1/']) {
      const parsed = parseWebhookUrl(url, { allowPrivate: true });
      expect(parsed).toMatchObject({ ok: true, target: { literalAddress: '127.0.0.1' } });
    }
  });
});

describe('safePost against real HTTPS servers', () => {
  const tls = selfSigned();
  const secureContext = trustingAlso(tls.cert);
  const base = { timeoutMs: 1000, maxResponseBytes: 1024, secureContext };

  it('when the receiver is on a private address and they are not allowed, then nothing is sent', async () => {
    const s = await server(tls, (_req, res) => res.end('ok'));
    try {
      const result = await safePost({ ...base, url: `https://127.0.0.1:${s.port}/hook`, body: '{}', headers: {}, allowPrivate: false });
      expect(result).toMatchObject({ ok: false, error: 'blocked address 127.0.0.1 (loopback)' });
      const byName = await safePost({ ...base, url: `https://localhost:${s.port}/hook`, body: '{}', headers: {}, allowPrivate: false });
      expect(byName.ok).toBe(false);
      expect(byName.error).toMatch(/^blocked address/);
      expect(s.seen).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('when the name resolves to a public address and then to 127.0.0.1, then the connection goes to the address that was checked, never to 127.0.0.1', async () => {
    const s = await server(tls, (_req, res) => res.end('ok'));
    let calls = 0;
    const rebinding: Resolver = async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    try {
      const result = await safePost({ ...base, timeoutMs: 500, url: `https://rebind.example:${s.port}/hook`, body: '{}', headers: {}, allowPrivate: false, resolver: rebinding });
      expect(result.ok).toBe(false);
      expect(calls).toBe(1);
      expect(s.seen).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('when the receiver answers 200, then it got the exact body, the headers and the Host of the URL', async () => {
    const s = await server(tls, (_req, res) => res.writeHead(200).end('thanks'));
    try {
      const body = JSON.stringify({ event: 'sms.sent', text: 'Café ✓' });
      const result = await safePost({ ...base, url: `https://localhost:${s.port}/hook?x=1`, body, headers: { 'X-Webhook-Signature': 'abc' }, allowPrivate: true });
      expect(result).toMatchObject({ ok: true, status: 200 });
      expect(result.latencyMs).toBeGreaterThan(0);
      expect(s.seen).toEqual([
        expect.objectContaining({ method: 'POST', url: '/hook?x=1', body, headers: expect.objectContaining({ host: `localhost:${s.port}`, 'x-webhook-signature': 'abc' }) }),
      ]);
    } finally {
      await s.close();
    }
  });

  it('when the receiver redirects to another (private) server, then the redirect is not followed and the attempt fails', async () => {
    const target = await server(tls, (_req, res) => res.end('ok'));
    const redirecting = await server(tls, (_req, res) => res.writeHead(302, { Location: `https://127.0.0.1:${target.port}/internal` }).end());
    try {
      const result = await safePost({ ...base, url: `https://127.0.0.1:${redirecting.port}/hook`, body: '{}', headers: {}, allowPrivate: true });
      expect(result).toMatchObject({ ok: false, status: 302, error: 'redirect not followed' });
      expect(redirecting.seen).toHaveLength(1);
      expect(target.seen).toEqual([]);
    } finally {
      await target.close();
      await redirecting.close();
    }
  });

  it('when the receiver never answers, then the attempt ends as a timeout after timeoutMs', async () => {
    const s = await server(tls, () => undefined);
    try {
      const started = Date.now();
      const result = await safePost({ ...base, timeoutMs: 300, url: `https://127.0.0.1:${s.port}/hook`, body: '{}', headers: {}, allowPrivate: true });
      expect(result).toMatchObject({ ok: false, error: 'timeout' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await s.close();
    }
  });

  it('when the receiver answers a huge body, then only maxResponseBytes are read and the status counts', async () => {
    const s = await server(tls, (_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = () => {
        while (sent < 200 && res.write(chunk)) sent++;
        if (sent < 200) res.once('drain', pump);
        else res.end();
      };
      pump();
    });
    try {
      const result = await safePost({ ...base, timeoutMs: 3000, url: `https://127.0.0.1:${s.port}/hook`, body: '{}', headers: {}, allowPrivate: true });
      expect(result).toMatchObject({ ok: true, status: 200 });
    } finally {
      await s.close();
    }
  });

  it('when nothing listens, when the certificate is not trusted, or when it does not name the host, then each is a failure with its reason', async () => {
    const s = await server(tls, (_req, res) => res.end('ok'));
    const closedPort = s.port;
    await s.close();
    const refused = await safePost({ ...base, url: `https://127.0.0.1:${closedPort}/`, body: '{}', headers: {}, allowPrivate: true });
    expect(refused).toMatchObject({ ok: false, error: 'connection refused' });

    const t = await server(tls, (_req, res) => res.end('ok'));
    try {
      const untrusted = await safePost({ timeoutMs: 1000, maxResponseBytes: 1024, url: `https://127.0.0.1:${t.port}/`, body: '{}', headers: {}, allowPrivate: true });
      expect(untrusted.ok).toBe(false);
      expect(untrusted.error).toMatch(/^TLS: /);
      const wrongName = await safePost({
        ...base,
        url: `https://receiver.example:${t.port}/`,
        body: '{}',
        headers: {},
        allowPrivate: true,
        resolver: fixed({ 'receiver.example': ['127.0.0.1'] }),
      });
      expect(wrongName.ok).toBe(false);
      expect(wrongName.error).toMatch(/^TLS: /);
      expect(t.seen).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
