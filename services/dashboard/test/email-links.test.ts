import path from 'node:path';
import { createClient, createLogger, createPool, quoteIdent, type Pool, type PromiseClient } from '@smsgw/platform';
import { accountProto, type account } from '@smsgw/proto';
import { freePort, grpcServing, REPO_ROOT, ServiceProcess, startMailCatcher, type CaughtMail, type MailCatcher } from '@smsgw/stack';
import { DATABASE_URL, eventually, NATS_URL, randomHex, REDIS_URL, grpcTlsEnv, grpcTlsFor, sleep } from '@smsgw/testing';
import { loadDashboardConfig } from '../src/config';
import { start } from '../src/main';

/**
 * Address verification, password reset and the throttle of passwords asked again: the dashboard
 * on port 0, the real account service (its build, as a process), real Redis and NATS, and a real
 * SMTP server catching the mails. A browser is played by hand: cookies kept, forms' CSRF tokens read.
 */

const RESEND_MAX = 2;
const RESET_PER_EMAIL = 3;
const RESET_PER_ADDRESS = 6;
const MAX_FAILURES = 10;

class Browser {
  private readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly base: string,
    readonly ip: string,
  ) {}

  async request(
    method: 'GET' | 'POST',
    path: string,
    form?: Record<string, string>,
  ): Promise<{ status: number; text: string; location: string }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        'x-forwarded-proto': 'https',
        'x-forwarded-for': this.ip,
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams({ _csrf: this.csrf, ...form }).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value = ''] = pair!.split('=');
      if (value) this.cookies.set(name!, value);
      else this.cookies.delete(name!);
    }
    const text = await res.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: res.status, text, location: res.headers.get('location') ?? '' };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, form: Record<string, string>) => this.request('POST', path, form);

  /** Whether this browser's session still opens a page of the account. */
  async signedIn(): Promise<boolean> {
    const res = await this.get('/settings');
    return res.status === 200;
  }
}

/** A mail's text, its quoted-printable soft breaks and `=` undone. */
const textOf = (mail: CaughtMail) => mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

/** The link of a mail, path and query only. */
function linkIn(mail: CaughtMail, route: string): string {
  const body = textOf(mail);
  const url = new RegExp(`https://[^\\s]+(${route}\\?token=[A-Za-z0-9_-]+)`).exec(body);
  if (!url) throw new Error(`no ${route} link in the mail:\n${body}`);
  return url[1]!;
}

const tokenOf = (link: string) => new URL(link, 'https://x').searchParams.get('token')!;

describe('dashboard e-mails: address verification, password reset, and passwords asked again', () => {
  const run = randomHex(5);
  const schema = `t_acc_${run}`;
  const prefix = `smsgw:t${run}:`;
  let accountService: ServiceProcess;
  let accounts: PromiseClient<account.AccountServiceClient>;
  let accountDb: Pool;
  let mail: MailCatcher;
  let app: Awaited<ReturnType<typeof start>>;
  let base: string;
  let addresses = 0;
  const newBrowser = () => new Browser(base, `198.51.100.${++addresses}`);
  const newEmail = (what: string) => `${what}-${randomHex(4)}@example.com`;

  beforeAll(async () => {
    const port = await freePort();
    const healthPort = await freePort();
    accountService = new ServiceProcess({
      name: 'account',
      args: [path.join(REPO_ROOT, 'services/account/dist/main.js')],
      env: {
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(port),
        GRPC_HEALTH_PORT: String(healthPort),
        ...grpcTlsEnv('account'),
        LOG_LEVEL: 'warn',
      },
      logFile: path.join(REPO_ROOT, `.stack/dashboard-tests/account-${run}.log`),
      ready: () => grpcServing(`127.0.0.1:${healthPort}`),
    });
    await accountService.start();
    accounts = createClient<account.AccountServiceClient>(accountProto().AccountService, `127.0.0.1:${port}`, {
      tls: grpcTlsFor('dashboard'),
    });
    accountDb = createPool({ url: DATABASE_URL, schema, max: 2 });
    mail = await startMailCatcher();
    app = await start(
      loadDashboardConfig({
        TLS_MODE: 'proxy',
        ...grpcTlsEnv('dashboard'),
        HTTP_HOST: '127.0.0.1',
        HTTP_PORT: '0',
        REDIS_URL,
        REDIS_PREFIX: prefix,
        NATS_URL,
        NATS_PREFIX: `t${run}`,
        ACCOUNT_GRPC_ADDR: `127.0.0.1:${port}`,
        // No phones, messages or webhooks here: the overview is not opened.
        DEVICE_HUB_GRPC_ADDR: '127.0.0.1:9',
        MESSAGE_GRPC_ADDR: '127.0.0.1:9',
        WEBHOOK_GRPC_ADDR: '127.0.0.1:9',
        GRPC_DEADLINE_MS: '3000',
        SMTP_URL: mail.url,
        DASHBOARD_PUBLIC_URL: 'https://dashboard.example',
        DASHBOARD_VERIFICATION_MAX: String(RESEND_MAX),
        DASHBOARD_RESET_MAX_PER_EMAIL: String(RESET_PER_EMAIL),
        DASHBOARD_RESET_MAX_PER_ADDRESS: String(RESET_PER_ADDRESS),
        DASHBOARD_SIGNIN_MAX_FAILURES: String(MAX_FAILURES),
      }),
      createLogger('dashboard-test', 'silent'),
    );
    base = `http://127.0.0.1:${app.port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await mail?.stop();
    accounts?.close();
    await accountDb?.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
    await accountDb?.end();
    await accountService?.stop();
  });

  async function signUp(email: string, password = 'the first password'): Promise<Browser> {
    const browser = newBrowser();
    await browser.get('/signup');
    const res = await browser.post('/signup', { email, password, name: 'Fleuriste' });
    expect(res.location).toBe('/keys?welcome=1');
    return browser;
  }

  async function signIn(email: string, password: string): Promise<Browser> {
    const browser = newBrowser();
    await browser.get('/signin');
    await browser.post('/signin', { email, password });
    return browser;
  }

  const clientOf = async (email: string) => (await accounts.signIn({ email, password: 'the first password' })).clientId;

  it('when an owner signs up, then the alert address gets a link, the settings say alerts wait for it with "send again", and the link verifies it once', async () => {
    const email = newEmail('verify');
    const owner = await signUp(email);
    const sent = await mail.waitFor((m) => m.to.includes(email));
    expect(sent.subject).toBe('Confirm the address of your SMS Gateway account');
    const link = linkIn(sent, '/verify-email');
    // The configured address, never the request's Host.
    expect(textOf(sent)).toContain(`https://dashboard.example${link}`);

    const settings = await owner.get('/settings');
    expect(settings.text).toContain('Alert e-mails are not sent until you confirm');
    expect(settings.text).toContain('Send the link again');
    expect((await accounts.getClient({ clientId: await clientOf(email) })).emailVerified).toBe(false);

    // Opening the link uses nothing (a mail scanner may open it); its button does.
    const anyone = newBrowser();
    expect((await anyone.get(link)).status).toBe(200);
    expect((await anyone.get(link)).status).toBe(200);
    const confirmed = await anyone.post('/verify-email', { token: tokenOf(link) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Your address is confirmed');
    expect((await accounts.getClient({ clientId: await clientOf(email) })).emailVerified).toBe(true);
    expect((await owner.get('/settings')).text).not.toContain('Alert e-mails are not sent until you confirm');

    const again = await anyone.post('/verify-email', { token: tokenOf(link) });
    expect(again.status).toBe(400);
    expect(again.text).toContain('This link does not work');
  });

  it('when the owner asks for the link again, then it is mailed a few times, and past the limit the page says to wait', async () => {
    const email = newEmail('resend');
    const owner = await signUp(email);
    await mail.waitFor((m) => m.to.includes(email));
    await owner.get('/settings');
    for (let i = 0; i < RESEND_MAX; i++) {
      const res = await owner.post('/settings/verify-email', {});
      expect(res.text).toContain('We sent the link again');
    }
    const refused = await owner.post('/settings/verify-email', {});
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Wait an hour');
    await eventually(async () => mail.mails.filter((m) => m.to.includes(email)).length === 1 + RESEND_MAX, 5000, 'the mails');
    await sleep(300);
    expect(mail.mails.filter((m) => m.to.includes(email))).toHaveLength(1 + RESEND_MAX);
  });

  /** The address confirmed with the link mailed at sign-up. */
  async function confirm(email: string): Promise<void> {
    const sent = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Confirm'));
    const anyone = newBrowser();
    await anyone.get('/verify-email');
    expect((await anyone.post('/verify-email', { token: tokenOf(linkIn(sent, '/verify-email')) })).status).toBe(200);
  }

  it('when a password is reset through the mailed link, then the new password signs in, the old one and every old session do not, and the link works once', async () => {
    const email = newEmail('reset');
    const first = await signUp(email);
    // A confirmed account: this reset proves nothing new (the first proof's own test is below).
    await confirm(email);
    const second = await signIn(email, 'the first password');
    expect(await first.signedIn()).toBe(true);
    expect(await second.signedIn()).toBe(true);

    const asker = newBrowser();
    const form = await asker.get('/signin');
    expect(form.text).toContain('href="/forgot-password"');
    await asker.get('/forgot-password');
    const answer = await asker.post('/forgot-password', { email });
    const stranger = newBrowser();
    await stranger.get('/forgot-password');
    const strangerAnswer = await stranger.post('/forgot-password', { email: newEmail('nobody') });
    // The same answer whether the address has an account or not.
    expect(answer.status).toBe(200);
    expect(strangerAnswer.status).toBe(200);
    const noticeOf = (text: string) => /<p class="notice ok"[^>]*>([^<]*)<\/p>/.exec(text)?.[1];
    expect(noticeOf(answer.text)).toContain('If an account uses this address');
    expect(noticeOf(strangerAnswer.text)).toBe(noticeOf(answer.text));

    const sent = await mail.waitFor((m) => m.to.includes(email) && m.subject === 'Reset your SMS Gateway password');
    expect(textOf(sent)).toMatch(/for the next (29|30) minutes/);
    const link = linkIn(sent, '/reset-password');
    // Only the token's hash is stored.
    const stored = await accountDb.query<{ token_hash: Buffer }>("SELECT token_hash FROM email_tokens WHERE purpose = 'reset_password'");
    expect(stored.rows.every((r) => r.token_hash.length === 32)).toBe(true);
    expect(JSON.stringify(stored.rows)).not.toContain(tokenOf(link));

    const page = await asker.get(link);
    expect(page.text).toContain('New password');
    const weak = await asker.post('/reset-password', { token: tokenOf(link), new: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('10');
    const done = await asker.post('/reset-password', { token: tokenOf(link), new: 'the second password' });
    expect(done.location).toBe('/signin?reset=1');

    expect(await first.signedIn()).toBe(false);
    expect(await second.signedIn()).toBe(false);
    const withOld = newBrowser();
    await withOld.get('/signin');
    expect((await withOld.post('/signin', { email, password: 'the first password' })).status).toBe(401);
    expect(await (await signIn(email, 'the second password')).signedIn()).toBe(true);

    const reused = await asker.post('/reset-password', { token: tokenOf(link), new: 'a third password' });
    expect(reused.status).toBe(400);
    expect(reused.text).toContain('This link does not work');

    // A link past its lifetime is refused too.
    const later = newBrowser();
    await later.get('/forgot-password');
    await later.post('/forgot-password', { email });
    const lateMail = await mail.waitFor((m) => m.to.includes(email) && m !== sent && m.subject === 'Reset your SMS Gateway password');
    await accountDb.query(
      "UPDATE email_tokens SET expires_at = now() - interval '1 second' WHERE purpose = 'reset_password' AND used_at IS NULL",
    );
    const expired = await later.post('/reset-password', { token: tokenOf(linkIn(lateMail, '/reset-password')), new: 'a third password' });
    expect(expired.status).toBe(400);
    expect(await (await signIn(email, 'the second password')).signedIn()).toBe(true);
  });

  it('when reset links are asked for again and again, then past the limit per address and per e-mail the page says to wait and no mail goes', async () => {
    const email = newEmail('flood');
    await signUp(email);
    const asker = newBrowser();
    await asker.get('/forgot-password');
    for (let i = 0; i < RESET_PER_EMAIL; i++) expect((await asker.post('/forgot-password', { email })).status).toBe(200);
    expect((await asker.post('/forgot-password', { email })).status).toBe(429);
    // From another address, the same e-mail is refused as well.
    const other = newBrowser();
    await other.get('/forgot-password');
    expect((await other.post('/forgot-password', { email })).status).toBe(429);
    // One address asking for many e-mails is refused past its own limit.
    const spreader = newBrowser();
    await spreader.get('/forgot-password');
    const statuses: number[] = [];
    for (let i = 0; i < RESET_PER_ADDRESS + 3; i++)
      statuses.push((await spreader.post('/forgot-password', { email: newEmail('any') })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(RESET_PER_ADDRESS);
    expect(statuses.slice(RESET_PER_ADDRESS).every((s) => s === 429)).toBe(true);
    await sleep(500);
    expect(mail.mails.filter((m) => m.to.includes(email) && m.subject.startsWith('Reset'))).toHaveLength(RESET_PER_EMAIL);
  });

  it('when 20 wrong passwords are typed where the password is asked again, then at most the limit are checked, the rest and then the right one are refused 429, and the password change form is throttled too', async () => {
    const email = newEmail('reauth');
    const owner = await signUp(email);
    await owner.get('/settings');
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await owner.post('/settings/secret', { password: `wrong guess ${i}` }));
    const wrong = answers.filter((a) => a.text.includes('Your password is wrong'));
    const throttled = answers.filter((a) => a.status === 429 && a.text.includes('Too many wrong passwords'));
    expect(wrong.length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(wrong.length + throttled.length).toBe(20);
    expect(throttled.length).toBeGreaterThanOrEqual(20 - MAX_FAILURES);

    const right = await owner.post('/settings/secret', { password: 'the first password' });
    expect(right.status).toBe(429);
    expect(right.text).not.toContain('whsec_');
    const change = await owner.post('/settings/password', { current: 'the first password', new: 'another long password' });
    expect(change.status).toBe(429);
    expect((await accounts.signIn({ email, password: 'the first password' })).email).toBe(email);
  });

  it("when someone signed up with another's address and its owner resets the password, then the squatter's keys are refused, the page says what was revoked, and what the other services hold is left to the owner when they do not answer", async () => {
    const email = newEmail('squatted');
    const squatter = await signUp(email);
    const clientId = await clientOf(email);
    const keys = await accounts.listApiKeys({ clientId });
    expect(keys.keys).toHaveLength(2);
    const secretBefore = (await accounts.getSigningSecret({ clientId })).secret;

    const owner = newBrowser();
    await owner.get('/forgot-password');
    await owner.post('/forgot-password', { email });
    const sent = await mail.waitFor((m) => m.to.includes(email) && m.subject === 'Reset your SMS Gateway password');
    await owner.get(linkIn(sent, '/reset-password'));
    const done = await owner.post('/reset-password', { token: tokenOf(linkIn(sent, '/reset-password')), new: 'the owner password' });

    expect(done.status).toBe(200);
    expect(done.text).toContain('This reset is the first proof that the address is yours');
    expect(done.text).toContain('2 API keys revoked (live and test)');
    // Here the hub and the webhook service do not answer: the owner is told what to do by hand.
    expect(done.text).toContain('the phones and webhook endpoints could not be revoked now');
    expect(await squatter.signedIn()).toBe(false);
    expect((await accounts.listApiKeys({ clientId })).keys.every((k) => k.revokedAt !== '')).toBe(true);
    expect((await accounts.getSigningSecret({ clientId })).secret).not.toBe(secretBefore);
    expect((await accounts.getClient({ clientId })).accountVerified).toBe(true);
  });
});
