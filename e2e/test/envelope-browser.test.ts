// The dashboard's browser implementation of the end-to-end envelope against the shared vectors, in
// Chromium: WebCrypto's AES-GCM and PBKDF2 with the page's own scrypt.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../..');
interface BrowserEnvelope {
  open(envelope: string, passphrase: string): Promise<string>;
  seal(plaintext: string, passphrase: string, options: object): Promise<string>;
}

const vectors = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/e2e-envelope/test-vectors.json'), 'utf8')) as {
  valid: { passphrase: string; plaintext: string; salt: string; nonce: string; envelope: string; kdf: object }[];
  invalid: { why: string; passphrase: string; envelope: string }[];
};

describe('the envelope in the browser', () => {
  let browser: Browser;
  let server: http.Server;
  let page: Page;

  beforeAll(async () => {
    const script = fs.readFileSync(path.join(ROOT, 'services/dashboard/public/envelope.js'));
    // A page on 127.0.0.1 is a secure context, where WebCrypto is available.
    server = http.createServer((req, res) => {
      if (req.url === '/envelope.js') res.writeHead(200, { 'content-type': 'application/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><script src="/envelope.js"></script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('when each valid envelope is opened, then its plain text comes back, and sealing with its salt and nonce gives it back', async () => {
    const results = await page.evaluate(async (valid) => {
      const E = (globalThis as unknown as { SmsgwEnvelope: BrowserEnvelope }).SmsgwEnvelope;
      const hex = (s: string): Uint8Array => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
      const out = [];
      for (const v of valid) {
        out.push({
          opened: await E.open(v.envelope, v.passphrase),
          sealed: await E.seal(v.plaintext, v.passphrase, { kdf: v.kdf, salt: hex(v.salt), nonce: hex(v.nonce) }),
        });
      }
      return out;
    }, vectors.valid);
    expect(results).toEqual(vectors.valid.map((v) => ({ opened: v.plaintext, sealed: v.envelope })));
  });

  it('when each invalid envelope is opened, then it fails with DECRYPTION_FAILED', async () => {
    const codes = await page.evaluate(async (invalid) => {
      const E = (globalThis as unknown as { SmsgwEnvelope: BrowserEnvelope }).SmsgwEnvelope;
      const out: string[] = [];
      for (const v of invalid) {
        try {
          await E.open(v.envelope, v.passphrase);
          out.push(`opened: ${v.why}`);
        } catch (error) {
          out.push((error as { code?: string }).code ?? String(error));
        }
      }
      return out;
    }, vectors.invalid);
    expect(codes).toEqual(vectors.invalid.map(() => 'DECRYPTION_FAILED'));
  });
});
