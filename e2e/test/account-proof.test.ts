import type http from 'node:http';
import https from 'node:https';
import WebSocket from 'ws';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '@smsgw/stack';
import { eventually } from './support/http';
import { pair } from './support/raw-phone';
import { TestSystem, type DemoClient } from './support/system';

/**
 * Issue 36's findings that an account owner, or an attacker with a free account, can see: an
 * account is its address's once proven (a squatter's keys die at the owner's reset), the signing
 * secret rotates only with the password, and the caps of phones, endpoints and live views; a
 * password pairing takes the phone's place. The whole system, its dashboard driven over HTTPS as
 * a browser does (cookies, CSRF tokens), its mails caught by a real SMTP server.
 */

const CAPS = { HUB_MAX_PHONES_PER_CLIENT: '2', WEBHOOK_MAX_ENDPOINTS_PER_CLIENT: '2', DASHBOARD_LIVE_STREAMS_MAX: '2' };

interface Page {
  status: number;
  location: string;
  text: string;
}

/** One person's browser on the dashboard: its cookies, and the CSRF token of the last page it read. */
class Browser {
  private readonly cookies = new Map<string, string>();
  private csrf = '';
  private readonly held: http.ClientRequest[] = [];

  constructor(private readonly system: TestSystem) {}

  get(path: string): Promise<Page> {
    return this.request('GET', path);
  }

  post(path: string, fields: Record<string, string> = {}): Promise<Page> {
    return this.request('POST', path, new URLSearchParams({ _csrf: this.csrf, ...fields }).toString());
  }

  /** A stream page kept open as a tab does: its status and, when it is refused, its text. */
  hold(path: string): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${this.system.stack.dashboardUrl}${path}`,
        { ca: this.system.stack.certs.caPem, agent: false, headers: { cookie: this.cookie() } },
        (res) => {
          if (res.statusCode === 200) return resolve({ status: 200, text: '' });
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end();
      this.held.push(req);
    });
  }

  closeStreams(): void {
    for (const req of this.held.splice(0)) req.destroy();
  }

  private cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private request(method: string, path: string, body?: string): Promise<Page> {
    const headers: Record<string, string | number> = { cookie: this.cookie() };
    if (body !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = Buffer.byteLength(body);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(
        `${this.system.stack.dashboardUrl}${path}`,
        { method, headers, ca: this.system.stack.certs.caPem, agent: false },
        (res) => {
          for (const c of res.headers['set-cookie'] ?? []) {
            const [pair] = c.split(';');
            const eq = pair!.indexOf('=');
            const value = pair!.slice(eq + 1);
            if (value) this.cookies.set(pair!.slice(0, eq), value);
            else this.cookies.delete(pair!.slice(0, eq));
          }
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString('utf8')));
          res.on('end', () => {
            const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
            if (token) this.csrf = token;
            resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? ''), text });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

describe('accounts proven by their address, and the limits of issue 36', () => {
  let system: TestSystem;
  let mail: MailCatcher;

  beforeAll(async () => {
    mail = await startMailCatcher();
    system = await TestSystem.start({ SMTP_URL: mail.url, DASHBOARD_SIGNUP_MAX_PER_ADDRESS: '20', ...CAPS });
  });

  afterAll(async () => {
    await system?.stop();
    await mail?.stop();
  });

  /** The token of the last link of that route mailed to `email`. */
  async function mailedToken(email: string, route: string, after: CaughtMail[] = []): Promise<string> {
    const sent = await mail.waitFor((m) => m.to.includes(email) && m.raw.includes(route) && !after.includes(m));
    return new RegExp(`${route}\\?token=([A-Za-z0-9_-]+)`).exec(sent.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1]!;
  }

  async function signUp(email: string, password: string, { confirm = true } = {}): Promise<{ browser: Browser; clientId: string }> {
    const browser = new Browser(system);
    await browser.get('/signup');
    expect((await browser.post('/signup', { email, name: 'Acme', password })).location).toBe('/keys?welcome=1');
    const clientId = /<code[^>]*>(client_\d+)<\/code>/.exec((await browser.get('/keys')).text)![1]!;
    if (confirm) {
      const token = await mailedToken(email, '/verify-email');
      await browser.get(`/verify-email?token=${token}`);
      expect((await browser.post('/verify-email', { token })).text).toContain('Your address is confirmed');
    }
    return { browser, clientId };
  }

  async function newKey(browser: Browser, password: string, mode: 'live' | 'test'): Promise<string> {
    await browser.get('/keys');
    const made = await browser.post('/keys', { name: `${mode} key`, mode, password });
    return new RegExp(`sgw_${mode}_[A-Za-z0-9]{40}`).exec(made.text)![0];
  }

  const history = (clientId: string, key: string, mode: 'live' | 'test') =>
    system.api(
      '/v1/sms/history',
      { client_id: clientId, live_api_key: mode === 'live' ? key : '', test_api_key: mode === 'test' ? key : '', signing_secret: '' },
      {},
      mode,
    );

  it("when someone signs up with another's address, then its live key is refused ACCOUNT_NOT_VERIFIED; when the address's owner resets the password, then the squatter's keys are refused within 5 s and the page says what was revoked", async () => {
    const email = `victim${Date.now()}@example.com`;
    const squatter = await signUp(email, 'the squatter password', { confirm: false });
    const live = await newKey(squatter.browser, 'the squatter password', 'live');
    const test = await newKey(squatter.browser, 'the squatter password', 'test');

    const refused = await history(squatter.clientId, live, 'live');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'ACCOUNT_NOT_VERIFIED' } });
    expect((await history(squatter.clientId, test, 'test')).status).toBe(200);
    // Phones and endpoints wait for the proof too.
    await squatter.browser.get('/phones');
    expect((await squatter.browser.post('/phones', { name: 'squatter phone' })).status).toBe(403);

    // The address's owner asks for a reset link: the mail reaches the owner only.
    const owner = new Browser(system);
    await owner.get('/forgot-password');
    await owner.post('/forgot-password', { email });
    const token = await mailedToken(email, '/reset-password');
    await owner.get(`/reset-password?token=${token}`);
    const done = await owner.post('/reset-password', { token, new: 'the owner password' });
    const resetAt = Date.now();

    expect(done.status).toBe(200);
    expect(done.text).toContain('This reset is the first proof that the address is yours');
    expect(done.text).toContain('4 API keys revoked (live and test)');
    await eventually(
      async () =>
        (await history(squatter.clientId, test, 'test')).status === 401 && (await history(squatter.clientId, live, 'live')).status === 401
          ? true
          : undefined,
      10_000,
      "the squatter's keys refused",
    );
    expect(Date.now() - resetAt).toBeLessThan(5500);
    expect((await history(squatter.clientId, live, 'live')).body).toMatchObject({ error: { code: 'INVALID_API_KEY' } });
    expect((await squatter.browser.get('/keys')).location).toMatch(/^\/signin/);

    // The owner signs in: a new live key works at once.
    await owner.get('/signin');
    await owner.post('/signin', { email, password: 'the owner password' });
    expect((await history(squatter.clientId, await newKey(owner, 'the owner password', 'live'), 'live')).status).toBe(200);
  });

  it('when the signing secret is rotated without the password or with a wrong one, then it is refused with the reason and the secret stays; with it, the secret changes', async () => {
    const { browser } = await signUp(`rotate${Date.now()}@example.com`, 'the owner password');
    await browser.get('/settings');
    const secretOf = async () =>
      /whsec_[A-Za-z0-9]+/.exec((await browser.post('/settings/secret', { password: 'the owner password' })).text)![0];
    const before = await secretOf();

    for (const password of [undefined, 'not the password']) {
      const refused = await browser.post('/settings/secret/rotate', password === undefined ? {} : { password });
      expect(refused.text).toContain('Your password is wrong: nothing was changed.');
      expect(await secretOf()).toBe(before);
    }
    const rotated = await browser.post('/settings/secret/rotate', { password: 'the owner password' });
    expect(rotated.text).toContain('The signing secret was rotated.');
    expect(await secretOf()).not.toBe(before);
  });

  it('when an account reaches its caps of phones, webhook endpoints and live views, then the next is refused with the cap in words, and other accounts are not held back', async () => {
    const { browser } = await signUp(`caps${Date.now()}@example.com`, 'the owner password');
    await browser.get('/phones');
    for (const name of ['one', 'two']) expect((await browser.post('/phones', { name })).text).toContain('Pairing QR code');
    const third = await browser.post('/phones', { name: 'three' });
    expect(third.status).toBe(409);
    expect(third.text).toContain('Un compte peut avoir 2 téléphones au plus : retirez-en un avant d&#39;en ajouter un autre.');

    await browser.get('/webhooks');
    for (const n of [1, 2]) {
      const made = await browser.post('/webhooks', { url: `https://127.0.0.1:9/hook-${n}`, mode: 'live', events: 'sms.sent' });
      expect(made.text).toContain('Endpoint created');
    }
    const endpoint = await browser.post('/webhooks', { url: 'https://127.0.0.1:9/hook-3', mode: 'live', events: 'sms.sent' });
    expect(endpoint.status).toBe(409);
    expect(endpoint.text).toContain('Un compte peut avoir 2 points de terminaison de webhook au plus');

    const views = [await browser.hold('/phones/events'), await browser.hold('/phones/events')];
    expect(views.map((v) => v.status)).toEqual([200, 200]);
    const tooMany = await browser.hold('/phones/events');
    expect(tooMany).toEqual({
      status: 429,
      text: 'Too many live views of your phones are open (2 at most): close a tab or a window of this page.',
    });
    const other = await signUp(`other${Date.now()}@example.com`, 'another password');
    expect((await other.browser.hold('/phones/events')).status).toBe(200);
    browser.closeStreams();
    other.browser.closeStreams();
  });

  it("when a device pairs again with its password, then the earlier pairing's token is refused, and past 5 pairings in the hour the next is refused with 429", async () => {
    const client: DemoClient = await system.createClient();
    const device = await system.createDevice(client.client_id, 'leaked password');
    const { hubUrl, certs } = system.stack;
    const first = await pair(hubUrl, certs.caPem, client.client_id, device.device_password);
    const second = await pair(hubUrl, certs.caPem, client.client_id, device.device_password);

    const upgrade = (token: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${hubUrl.replace('https', 'wss')}/v1/agent`, 'smsgw.agent.v1', {
          ca: certs.caPem,
          headers: { authorization: `Bearer ${token}` },
        });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => undefined);
      });
    expect(await upgrade(first)).toBe(401);
    expect(await upgrade(second)).toBe(101);

    for (let i = 0; i < 3; i++) await pair(hubUrl, certs.caPem, client.client_id, device.device_password);
    await expect(pair(hubUrl, certs.caPem, client.client_id, device.device_password)).rejects.toThrow(/pairing answered 429/);
  });
});
