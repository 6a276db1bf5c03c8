import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { checkWebhookUrl, safePost, trustingAlso, type Resolver, type SafePostRequest } from '../src';
import { httpsReceiver, type Receiver } from './support/https-receiver';
import { testCertificates } from './support/test-certificates';

const certs = testCertificates(['localhost', 'hooks.test', 'alias.test', 'rebind.test', '127.0.0.1', '127.0.0.2', '::1']);
const secureContext = trustingAlso(certs.caPem);
const post = (req: Partial<SafePostRequest> & { url: string }) =>
  safePost({ body: '{}', headers: {}, timeoutMs: 2000, allowPrivate: true, secureContext, ...req });

/** A resolver answering from a table, as DNS would; unknown names fail as ENOTFOUND. */
const answering =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    if (!table[host]) throw Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' });
    return table[host];
  };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withReceiver(answer: Parameters<typeof httpsReceiver>[1], run: (r: Receiver) => Promise<void>) {
  const receiver = await httpsReceiver(certs.trusted, answer);
  try {
    await run(receiver);
  } finally {
    await receiver.close();
  }
}

describe('safePost with private addresses refused', () => {
  // A receiver on 127.0.0.1:P stands for what an attacker wants to reach: it must see no connection at all.
  let canary: Receiver;
  beforeAll(async () => {
    canary = await httpsReceiver(certs.trusted, (_req, res) => res.end('ok'));
  });
  afterAll(() => canary.close());

  const resolver = answering({
    'internal.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '10.0.0.5'],
    'mixed-v6.test': ['2606:4700:4700::1111', '::1'],
    'hooks.test': ['93.184.216.34'],
  });

  const REFUSED: [url: string, reason: string][] = [
    ['https://127.0.0.1:P/hook', 'blocked address 127.0.0.1 (loopback)'],
    ['https://127.0.0.2:P/', 'blocked address 127.0.0.2 (loopback)'],
    ['https://0.0.0.0:P/', 'blocked address 0.0.0.0 (unspecified)'],
    ['https://0:P/', 'blocked address 0.0.0.0 (unspecified)'],
    ['https://10.0.0.1/', 'blocked address 10.0.0.1 (private)'],
    ['https://10.255.255.255/', 'blocked address 10.255.255.255 (private)'],
    ['https://172.16.0.1/', 'blocked address 172.16.0.1 (private)'],
    ['https://172.31.255.254/', 'blocked address 172.31.255.254 (private)'],
    ['https://192.168.1.1/', 'blocked address 192.168.1.1 (private)'],
    ['https://169.254.169.254/latest/meta-data/', 'blocked address 169.254.169.254 (link-local)'],
    ['https://100.64.0.1/', 'blocked address 100.64.0.1 (cgnat)'],
    ['https://100.100.100.200/', 'blocked address 100.100.100.200 (cgnat)'],
    ['https://224.0.0.1/', 'blocked address 224.0.0.1 (multicast)'],
    ['https://239.255.255.250/', 'blocked address 239.255.255.250 (multicast)'],
    ['https://255.255.255.255/', 'blocked address 255.255.255.255 (broadcast)'],
    ['https://240.0.0.1/', 'blocked address 240.0.0.1 (reserved)'],
    ['https://198.18.0.1/', 'blocked address 198.18.0.1 (benchmarking)'],
    ['https://192.0.2.1/', 'blocked address 192.0.2.1 (documentation)'],
    ['https://2130706433:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://017700000001:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://0177.0.0.1:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://0x7f.0.0.1:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://0x7f000001:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://127.1:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://%31%32%37.0.0.1:P/', 'blocked address 127.0.0.1 (loopback)'],
    ['https://0xa9.0xfe.0xa9.0xfe/', 'blocked address 169.254.169.254 (link-local)'],
    ['https://[::1]:P/', 'blocked address ::1 (loopback)'],
    ['https://[::]:P/', 'blocked address :: (unspecified)'],
    ['https://[fe80::1]/', 'blocked address fe80::1 (link-local)'],
    ['https://[fc00::1]/', 'blocked address fc00::1 (unique-local)'],
    ['https://[fd00:ec2::254]/', 'blocked address fd00:ec2::254 (unique-local)'],
    ['https://[ff02::1]/', 'blocked address ff02::1 (multicast)'],
    ['https://[::ffff:127.0.0.1]:P/', 'blocked address ::ffff:7f00:1 (ipv4-mapped)'],
    ['https://[::ffff:7f00:1]:P/', 'blocked address ::ffff:7f00:1 (ipv4-mapped)'],
    ['https://[::ffff:169.254.169.254]/', 'blocked address ::ffff:a9fe:a9fe (ipv4-mapped)'],
    ['https://[::127.0.0.1]:P/', 'blocked address ::7f00:1 (ipv4-compatible)'],
    ['https://[64:ff9b::7f00:1]/', 'blocked address 64:ff9b::7f00:1 (nat64)'],
    ['https://[64:ff9b:1::a00:1]/', 'blocked address 64:ff9b:1::a00:1 (nat64)'],
    ['https://[2002:7f00:1::]/', 'blocked address 2002:7f00:1:: (6to4)'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'blocked address 2001:0:4136:e378:8000:63bf:3fff:fdd2 (teredo)'],
    ['https://[2001:db8::1]/', 'blocked address 2001:db8::1 (documentation)'],
    ['https://localhost:P/', 'blocked host localhost (loopback)'],
    ['https://localhost.:P/', 'blocked host localhost. (loopback)'],
    ['https://hook.localhost:P/', 'blocked host hook.localhost (loopback)'],
    ['https://metadata/computeMetadata/v1/', 'blocked host metadata (single-label name)'],
    ['https://internal.test:P/', 'blocked host internal.test (resolves to a loopback address)'],
    ['https://metadata.test/', 'blocked host metadata.test (resolves to a link-local address)'],
    ['https://mixed.test/', 'blocked host mixed.test (resolves to a private address)'],
    ['https://mixed-v6.test:P/', 'blocked host mixed-v6.test (resolves to a loopback address)'],
    ['https://unknown.test/', 'DNS: ENOTFOUND'],
    ['http://hooks.test/', 'the URL must be HTTPS'],
    ['http://127.0.0.1:P/', 'the URL must be HTTPS'],
    ['https://user:pw@hooks.test/', 'credentials in the URL are not allowed'],
    ['https://user@hooks.test/', 'credentials in the URL are not allowed'],
    ['https://user:pw@127.0.0.1:P/', 'credentials in the URL are not allowed'],
  ];

  it('when the list of refused URLs is counted, then it holds at least 30 distinct payloads', () => {
    expect(new Set(REFUSED.map(([url]) => url)).size).toBe(REFUSED.length);
    expect(REFUSED.length).toBeGreaterThanOrEqual(30);
  });

  it.each(REFUSED)('when %s is checked and posted to, then it is refused (%s) and nothing is sent', async (template, reason) => {
    const url = template.replace(':P/', `:${canary.port}/`);
    await expect(checkWebhookUrl(url, { allowPrivate: false, resolver })).resolves.toBe(reason);
    const result = await post({ url, allowPrivate: false, resolver, body: '{"secret":1}' });
    expect(result).toEqual({ ok: false, error: reason, latencyMs: expect.any(Number) });
    expect(canary.connections()).toBe(0);
  });
});

describe('safePost against DNS rebinding', () => {
  it('when the name answers 127.0.0.1 and then 127.0.0.2, then each attempt resolves once and connects to the address it checked', async () => {
    const first = await httpsReceiver(certs.trusted, (_req, res) => res.end('first'), { host: '127.0.0.1' });
    const second = await httpsReceiver(certs.trusted, (_req, res) => res.end('second'), { host: '127.0.0.2', port: first.port });
    const answers = [['127.0.0.1'], ['127.0.0.2']];
    let lookups = 0;
    const rebinding: Resolver = async () => answers[Math.min(lookups++, 1)]!;
    try {
      await expect(post({ url: `https://rebind.test:${first.port}/hook`, resolver: rebinding })).resolves.toMatchObject({
        ok: true,
        status: 200,
      });
      expect(lookups).toBe(1);
      expect([first.received.length, second.received.length]).toEqual([1, 0]);

      await expect(post({ url: `https://rebind.test:${first.port}/hook`, resolver: rebinding })).resolves.toMatchObject({
        ok: true,
        status: 200,
      });
      expect(lookups).toBe(2);
      expect([first.received.length, second.received.length]).toEqual([1, 1]);
      expect(second.received[0]!.headers.host).toBe(`rebind.test:${first.port}`);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('when the name answers a public address at the check and 127.0.0.1 afterwards, then the connection is opened to the public address only', async () => {
    // Records where the connection was asked to go and fails it, so that no packet leaves the machine.
    class OfflineAgent extends https.Agent {
      readonly dialled: string[] = [];
      override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): undefined {
        this.dialled.push(`${options.host}:${options.port}`);
        const unreachable = Object.assign(new Error('offline test network'), { code: 'ENETUNREACH' });
        setImmediate(() => callback?.(unreachable, undefined as never));
        return undefined;
      }
    }
    const agent = new OfflineAgent();
    let lookups = 0;
    const rebinding: Resolver = async () => (++lookups === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
    await withReceiver(
      (_req, res) => res.end('ok'),
      async (local) => {
        const result = await post({ url: `https://rebind.test:${local.port}/hook`, allowPrivate: false, resolver: rebinding, agent });
        expect(result).toMatchObject({ ok: false, error: 'host unreachable' });
        expect(lookups).toBe(1);
        expect(agent.dialled).toEqual([`93.184.216.34:${local.port}`]);
        expect(local.connections()).toBe(0);
      },
    );
  });
});

describe('safePost to a receiver (private addresses allowed, as in development)', () => {
  it('when the receiver answers 200, then it got one POST with the exact body, the headers, the path and the Host of the URL', async () => {
    await withReceiver(
      (_req, res) => res.writeHead(200).end('thanks'),
      async (r) => {
        const body = JSON.stringify({ event: 'sms.sent', text: 'Café ✓ 😀' });
        const result = await post({
          url: `https://localhost:${r.port}/hook/in?x=1&y=%20`,
          body,
          headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': 'v1,abc' },
        });
        expect(result).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number) });
        expect(r.received).toHaveLength(1);
        expect(r.received[0]).toMatchObject({ method: 'POST', url: '/hook/in?x=1&y=%20', body });
        expect(r.received[0]!.headers).toMatchObject({
          host: `localhost:${r.port}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-webhook-signature': 'v1,abc',
        });
      },
    );
  });

  it('when the receiver listens on [::1], then an IPv6 literal URL reaches it', async () => {
    const r = await httpsReceiver(certs.trusted, (_req, res) => res.writeHead(204).end(), { host: '::1' });
    try {
      await expect(post({ url: `https://[::1]:${r.port}/v6` })).resolves.toMatchObject({ ok: true, status: 204 });
      expect(r.received[0]).toMatchObject({ url: '/v6', headers: expect.objectContaining({ host: `[::1]:${r.port}` }) });
    } finally {
      await r.close();
    }
  });

  it('when a keep-alive agent is given, then attempts to the same name reuse one connection and another name on the same address gets its own', async () => {
    const agent = new https.Agent({ keepAlive: true });
    const resolver = answering({ 'hooks.test': ['127.0.0.1'], 'alias.test': ['127.0.0.1'] });
    try {
      await withReceiver(
        (_req, res) => res.end('ok'),
        async (r) => {
          for (let i = 0; i < 3; i++)
            await expect(post({ url: `https://hooks.test:${r.port}/`, resolver, agent })).resolves.toMatchObject({ ok: true });
          expect(r.connections()).toBe(1);
          await expect(post({ url: `https://alias.test:${r.port}/`, resolver, agent })).resolves.toMatchObject({ ok: true });
          expect(r.connections()).toBe(2);
          expect(r.received.map((q) => q.headers.host)).toEqual([...Array(3).fill(`hooks.test:${r.port}`), `alias.test:${r.port}`]);
        },
      );
    } finally {
      agent.destroy();
    }
  });

  it('when the receiver redirects to another server, then the redirect is not followed and the attempt fails with its status', async () => {
    await withReceiver(
      (_req, res) => res.end('ok'),
      async (target) => {
        await withReceiver(
          (_req, res) => res.writeHead(302, { Location: `https://127.0.0.1:${target.port}/internal` }).end(),
          async (redirecting) => {
            const result = await post({ url: `https://127.0.0.1:${redirecting.port}/hook` });
            expect(result).toEqual({ ok: false, status: 302, error: 'redirect not followed', latencyMs: expect.any(Number) });
            expect(redirecting.received).toHaveLength(1);
            expect(target.connections()).toBe(0);
          },
        );
      },
    );
  });

  it('when the receiver answers 500 with a body, then the error names the status only, never the body or the request headers', async () => {
    await withReceiver(
      (_req, res) => res.writeHead(500).end('stack trace with secret-in-body'),
      async (r) => {
        const result = await post({
          url: `https://127.0.0.1:${r.port}/`,
          body: '{"otp":"482913"}',
          headers: { 'X-Webhook-Signature': 'sig-secret' },
        });
        expect(result).toEqual({ ok: false, status: 500, error: 'HTTP 500', latencyMs: expect.any(Number) });
      },
    );
  });

  it('when a header value holds a line break, then nothing is sent and the error does not quote it', async () => {
    await withReceiver(
      (_req, res) => res.end('ok'),
      async (r) => {
        const result = await post({
          url: `https://127.0.0.1:${r.port}/`,
          headers: { 'X-Webhook-Signature': 'sig-secret\r\nX-Injected: 1' },
        });
        expect(result).toEqual({ ok: false, error: 'invalid request ERR_INVALID_CHAR', latencyMs: expect.any(Number) });
        expect(JSON.stringify(result)).not.toContain('secret');
        await sleep(50);
        expect(r.connections()).toBe(0);
      },
    );
  });
});

describe('safePost limits', () => {
  const expectTimeoutNear = (result: { ok: boolean; error?: string; latencyMs: number }, timeoutMs: number) => {
    expect(result).toMatchObject({ ok: false, error: 'timeout' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(timeoutMs - 5);
    expect(result.latencyMs).toBeLessThan(timeoutMs + 700);
  };

  it('when the receiver reads the request and never answers, then the attempt is a timeout after timeoutMs', async () => {
    await withReceiver(
      () => undefined,
      async (r) => expectTimeoutNear(await post({ url: `https://127.0.0.1:${r.port}/`, timeoutMs: 300 }), 300),
    );
  });

  it('when the receiver sends its headers and then trickles its body, then the attempt is still a timeout after timeoutMs', async () => {
    await withReceiver(
      (_req, res) => {
        res.writeHead(200);
        const drip = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(drip));
      },
      async (r) => expectTimeoutNear(await post({ url: `https://127.0.0.1:${r.port}/`, timeoutMs: 400 }), 400),
    );
  });

  it('when the server accepts TCP but never starts TLS, then the attempt is a timeout after timeoutMs', async () => {
    // Reads the client's hello and never answers it.
    const silent = net.createServer((socket) => socket.resume());
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (silent.address() as AddressInfo).port;
      expectTimeoutNear(await post({ url: `https://127.0.0.1:${port}/`, timeoutMs: 300 }), 300);
    } finally {
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('when DNS never answers, then the attempt is a timeout after timeoutMs', async () => {
    const silentDns: Resolver = () => new Promise(() => undefined);
    expectTimeoutNear(await post({ url: 'https://slow-dns.test/', timeoutMs: 300, resolver: silentDns }), 300);
  });

  it('when the receiver answers an endless body, then reading stops after maxResponseBytes, the connection is cut and the status counts', async () => {
    let cut: Promise<void> = Promise.resolve();
    await withReceiver(
      (_req, res) => {
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 'x');
        cut = new Promise((closed) => res.on('close', () => closed()));
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
      async (r) => {
        const result = await post({ url: `https://127.0.0.1:${r.port}/`, timeoutMs: 5000, maxResponseBytes: 32 * 1024 });
        expect(result).toEqual({ ok: true, status: 200, latencyMs: expect.any(Number) });
        expect(result.latencyMs).toBeLessThan(2000);
        await cut;
      },
    );
  });

  it('when no limit is given, then an endless body is cut at the default 64 KiB rather than read until the timeout', async () => {
    await withReceiver(
      (_req, res) => {
        res.writeHead(502);
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
      async (r) => {
        const result = await safePost({ url: `https://127.0.0.1:${r.port}/`, body: '{}', headers: {}, allowPrivate: true, secureContext });
        expect(result).toMatchObject({ ok: false, status: 502, error: 'HTTP 502' });
        expect(result.latencyMs).toBeLessThan(2000);
      },
    );
  });
});

describe('safePost connection failures', () => {
  it('when nothing listens on the port, then the attempt fails with connection refused', async () => {
    const r = await httpsReceiver(certs.trusted, (_req, res) => res.end());
    await r.close();
    await expect(post({ url: `https://127.0.0.1:${r.port}/` })).resolves.toEqual({
      ok: false,
      error: 'connection refused',
      latencyMs: expect.any(Number),
    });
  });

  it('when the certificate comes from a CA that is not trusted, then the attempt fails on TLS and nothing is sent', async () => {
    const r = await httpsReceiver(certs.untrusted, (_req, res) => res.end('ok'));
    try {
      await expect(post({ url: `https://127.0.0.1:${r.port}/` })).resolves.toMatchObject({
        ok: false,
        error: 'TLS: certificate not trusted',
      });
      // Without the local CA only the system's CAs are trusted.
      await expect(post({ url: `https://127.0.0.1:${r.port}/`, secureContext: undefined })).resolves.toMatchObject({
        ok: false,
        error: 'TLS: certificate not trusted',
      });
      expect(r.received).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('when the certificate does not name the host of the URL, then the attempt fails on TLS and nothing is sent', async () => {
    await withReceiver(
      (_req, res) => res.end('ok'),
      async (r) => {
        const resolver = answering({ 'elsewhere.test': ['127.0.0.1'] });
        await expect(post({ url: `https://elsewhere.test:${r.port}/`, resolver })).resolves.toMatchObject({
          ok: false,
          error: 'TLS: certificate does not name the host',
        });
        expect(r.received).toEqual([]);
      },
    );
  });

  it('when the server speaks plain HTTP, then the attempt fails on TLS', async () => {
    const plain = net.createServer((socket) => socket.on('data', () => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (plain.address() as AddressInfo).port;
      const result = await post({ url: `https://127.0.0.1:${port}/` });
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/^TLS: /);
    } finally {
      await new Promise<void>((r) => plain.close(() => r()));
    }
  });
});
