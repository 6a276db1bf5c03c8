import { createHash, createHmac, X509Certificate } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startMailCatcher, type MailCatcher } from '@smsgw/stack';
import { TestSystem } from './support/system';

// Two-factor sign-in (issue 41), in a real browser: a member enrols an authenticator (TOTP, RFC
// 6238) from a QR code, gets recovery codes once, then signs in with a code this test computes from
// the secret as any authenticator app would; a wrong code is refused, the secrets ask for the
// second factor too, and an owner can require it of every member.

const PASSWORD = 'correct horse battery';

/**
 * A request from the page itself (its cookies, its session's CSRF token, the certificate the
 * browser trusts), as a form or a link of the page would make it.
 */
async function fromPage(page: Page, path: string, form?: Record<string, string>): Promise<{ status: number; text: string }> {
  const csrf = form ? await page.locator('input[name=_csrf]').first().inputValue() : '';
  return page.evaluate(
    async ({ path, form }) => {
      const res = await fetch(path, form ? { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' } : {});
      return { status: res.status, text: await res.text() };
    },
    { path, form: form && { _csrf: csrf, ...form } },
  );
}

/** RFC 4648 base32 (no padding), as the otpauth URI carries the secret. */
function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of text.replace(/=+$/, '')) {
    value = (value << 5) | alphabet.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The code of RFC 6238 (HMAC-SHA1, 30 s, 6 digits) `stepsAhead` steps from now, computed here independently of the service. */
function totp(secret: Buffer, stepsAhead = 0): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + stepsAhead));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[19]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/** A code that is certainly not the right one now (nor one step either side). */
function wrongCode(secret: Buffer): string {
  const taken = new Set([totp(secret, -1), totp(secret), totp(secret, 1)]);
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!taken.has(code)) return code;
  }
}

describe('two-factor sign-in in the dashboard', () => {
  let system: TestSystem;
  let browser: Browser;
  let mail: MailCatcher;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    mail = await startMailCatcher();
    system = await TestSystem.start({ SMTP_URL: mail.url });
    const spki = new X509Certificate(system.stack.certs.certPem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    });
  });

  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    await browser?.close();
    await system?.stop();
    await mail?.stop();
  });

  async function person(): Promise<Page> {
    const context = await browser.newContext({ baseURL: system.stack.dashboardUrl });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('dialog', (d) => void d.accept());
    return page;
  }

  async function typeCredentials(page: Page, email: string): Promise<void> {
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** Enrols from the profile page: the secret read from the QR code's otpauth URI. */
  async function beginEnrolment(page: Page): Promise<Buffer> {
    await page.goto('/profile');
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const uri = new URL((await page.locator('figure.totp-qr').getAttribute('data-qr-payload'))!);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(await page.locator('figure.totp-qr svg').count()).toBe(1);
    const secret = uri.searchParams.get('secret')!;
    expect(await page.locator('[data-totp-secret]').textContent()).toBe(secret);
    return fromBase32(secret);
  }

  it('when a member enrols TOTP, then sign-in asks for a code: a wrong one is refused, the computed one signs in, and the secrets ask for it too', async () => {
    const email = `totp-${Date.now()}@example.com`;
    await system.admin.createUser(email, PASSWORD, 'Acme');
    const page = await person();
    await typeCredentials(page, email);
    await page.waitForURL((url) => url.pathname === '/');

    // A wrong code at enrolment turns nothing on.
    let secret = await beginEnrolment(page);
    await page.getByLabel('Code from the app').fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    expect(await page.locator('.notice.error').textContent()).toContain('still off');

    secret = await beginEnrolment(page);
    await page.getByLabel('Code from the app').fill(totp(secret));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    expect(await page.locator('.notice.ok').textContent()).toContain('Two-factor sign-in is on');
    const recovery = await page.locator('[data-recovery-codes] code').allTextContents();
    expect(recovery).toHaveLength(10);
    // Shown once: the page again does not show them.
    await page.goto('/profile');
    expect(await page.locator('[data-recovery-codes]').count()).toBe(0);

    // A new sign-in: the password alone opens nothing.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await typeCredentials(page, email);
    await page.waitForURL('**/signin/code**');
    await page.goto('/keys');
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.goto('/signin/code');
    await page.getByLabel(/Code from your authenticator app/).fill(wrongCode(secret));
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/signin/code') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Verify' }).click(),
    ]);
    expect(refused.status()).toBe(401);
    expect(await page.locator('.notice.error').textContent()).toContain('Wrong code');
    // The code of the next step (the enrolment took this one: a code is taken once).
    await page.getByLabel(/Code from your authenticator app/).fill(totp(secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect((await page.goto('/keys'))!.status()).toBe(200);

    // Showing the signing secret asks for the second factor too: the password alone is refused.
    await page.goto('/settings');
    await page.getByLabel('Your password, to show it').fill(PASSWORD);
    await page.getByRole('button', { name: 'Show the signing secret' }).click();
    expect(await page.locator('.notice.error').textContent()).toContain('authenticator app is wrong or missing');
    expect(await page.locator('#signing-secret').count()).toBe(0);
    // With a recovery code (each works once).
    await page.getByLabel('Your password, to show it').fill(PASSWORD);
    await page.locator('#secret-password-code').fill(recovery[0]!);
    await page.getByRole('button', { name: 'Show the signing secret' }).click();
    expect(await page.locator('#signing-secret').inputValue()).toMatch(/\S{20,}/);
    await page.goto('/settings');
    await page.getByLabel('Your password, to show it').fill(PASSWORD);
    await page.locator('#secret-password-code').fill(recovery[0]!);
    await page.getByRole('button', { name: 'Show the signing secret' }).click();
    expect(await page.locator('.notice.error').textContent()).toContain('authenticator app is wrong or missing');

    // The audit log: the enrolment, the refused code and the sign-in with its second factor, in order.
    const csv = (await fromPage(page, '/audit.csv')).text;
    const rows = csv
      .trim()
      .split('\r\n')
      .slice(1)
      .reverse()
      .map((line) => line.split(',')[3]);
    const wanted = ['two_factor.enabled', 'user.sign_in_failed', 'user.signed_in', 'secret.shown'];
    expect(rows.filter((a) => wanted.includes(a!))).toEqual([
      'user.signed_in',
      'two_factor.enabled',
      'user.sign_in_failed',
      'user.signed_in',
      'secret.shown',
      'user.sign_in_failed',
    ]);
  });

  it('when an owner requires two-factor sign-in, then a member without it can open only its profile until it enrols', async () => {
    const ownerEmail = `req-owner-${Date.now()}@example.com`;
    await system.admin.createUser(ownerEmail, PASSWORD, 'Acme');
    const owner = await person();
    await typeCredentials(owner, ownerEmail);
    await owner.waitForURL((url) => url.pathname === '/');

    const email = `req-dev-${Date.now()}@example.com`;
    await owner.goto('/members');
    await owner.getByLabel('E-mail').fill(email);
    await owner.getByLabel('Role', { exact: true }).selectOption('developer');
    await owner.getByRole('button', { name: 'Send the invitation' }).click();
    await owner.getByRole('button', { name: 'Require two-factor sign-in for every member' }).click();
    expect(await owner.locator('.notice.ok').textContent()).toContain('Every member now signs in with a second factor');

    const invitation = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('You are invited'));
    const link = /https:\/\/[^\s]+\/invite\?token=[A-Za-z0-9_-]+/.exec(invitation.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![0];
    const member = await person();
    await member.goto(link);
    await member.getByLabel('Choose a password').fill(PASSWORD);
    await member.getByRole('button', { name: 'Accept the invitation' }).click();
    await member.waitForURL('**/profile?enrol=1');
    await member.goto('/keys');
    expect(new URL(member.url()).pathname).toBe('/profile');
    expect(await member.locator('.notice.error').textContent()).toContain('requires two-factor sign-in');

    const secret = await beginEnrolment(member);
    await member.getByLabel('Code from the app').fill(totp(secret));
    await member.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await member.locator('[data-recovery-codes]').waitFor();
    expect((await member.goto('/keys'))!.status()).toBe(200);
  });
});
