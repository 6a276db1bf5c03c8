import { createHash, X509Certificate } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '@smsgw/stack';
import { eventually } from './support/http';
import { TestSystem, type DemoClient } from './support/system';

// Members and roles (issue 41), in a real browser: an owner invites members by e-mail (a real SMTP
// server catches the invitation), each role opens its own pages and no other, a change of role or a
// removal holds from the member's next request, and the audit log has each action with its actor.

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

describe('members and roles in the dashboard', () => {
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

  /** A browser of its own (its own cookies): one person. */
  async function person(): Promise<Page> {
    const context = await browser.newContext({ baseURL: system.stack.dashboardUrl });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    // The pages' "are you sure?" questions are answered yes.
    page.on('dialog', (d) => void d.accept());
    return page;
  }

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');
  }

  /** An owner with a verified account, signed in. */
  async function owner(): Promise<{ page: Page; email: string; client: DemoClient }> {
    const email = `owner-${Date.now()}@example.com`;
    const made = await system.admin.createUser(email, PASSWORD, 'Boulangerie Martin');
    const page = await person();
    await signIn(page, email);
    return { page, email, client: made };
  }

  function linkIn(m: CaughtMail, route: string): string {
    const text = m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    return new RegExp(`https://[^\\s]+${route}\\?token=[A-Za-z0-9_-]+`).exec(text)![0];
  }

  /** The owner invites `email` as `role`; the invitee opens the mailed link in a browser of their own and chooses a password. */
  async function invite(ownerPage: Page, role: string, label: string): Promise<{ page: Page; email: string }> {
    const email = `${label}-${Date.now()}@example.com`;
    await ownerPage.goto('/members');
    await ownerPage.getByLabel('E-mail').fill(email);
    await ownerPage.getByLabel('Role', { exact: true }).selectOption(role);
    await ownerPage.getByRole('button', { name: 'Send the invitation' }).click();
    await ownerPage.locator('.notice.ok').filter({ hasText: email }).waitFor();
    expect(await ownerPage.locator(`li[data-invitation="${email}"]`).textContent()).toContain(`as ${role}`);

    const invitation = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('You are invited'));
    const page = await person();
    await page.goto(linkIn(invitation, '/invite'));
    expect(await page.locator('form').textContent()).toContain(role);
    await page.getByLabel('Choose a password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await page.locator('header .who').textContent()).toContain(`${email} (${role})`);
    // The link works once.
    const again = await person();
    await again.goto(linkIn(invitation, '/invite'));
    expect(await again.locator('.notice.error').textContent()).toContain('does not work');
    return { page, email };
  }

  it('when the owner invites a support member, then the member reads the history and replies in the inbox but is refused the keys page', async () => {
    const { page: ownerPage, client } = await owner();
    // A phone, an SMS sent through it and one it received: the history and the inbox have something.
    const device = await system.createDevice(client.client_id, 'Comptoir');
    const agent = await system.startAgent(client, device);
    const sent = await system.api('/v1/sms/send', client, { body: { to: '+33612345678', message: 'Votre commande est prête' } });
    expect(sent.status).toBe(200);
    await system.waitForStatus(client, String(sent.body.message_id), 'delivered');
    await system.cli(
      'receive-sms',
      '--client',
      client.client_id,
      '--device',
      device.device_id,
      '--from',
      '+33699999999',
      '--text',
      'Ouvert dimanche ?',
    );

    const { page } = await invite(ownerPage, 'support', 'support');

    // The navigation offers what the role opens, and nothing else.
    const nav = await page.locator('nav[aria-label="Main"] a').allTextContents();
    expect(nav).toEqual(expect.arrayContaining(['Messages', 'Inbox', 'Opt-outs']));
    expect(nav).not.toEqual(expect.arrayContaining(['API keys']));
    expect(nav.filter((n) => ['API keys', 'Settings', 'Phones', 'Webhooks', 'Members', 'Audit log'].includes(n))).toEqual([]);

    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('link', { name: 'Votre commande est prête' }).waitFor();

    await page.getByRole('link', { name: 'Inbox' }).click();
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('tr[data-conversation="+33699999999"]').count()) === 1 ? true : undefined;
      },
      15_000,
      'the conversation in the inbox',
    );
    await page.locator('tr[data-conversation="+33699999999"] a').click();
    await page.getByLabel('Reply to +33699999999').fill('Oui, de 9 h à 13 h.');
    await page.getByRole('button', { name: 'Send the reply' }).click();
    await page.waitForURL('**?sent=1');
    await eventually(
      async () => (agent.sent.some((s) => s.to === '+33699999999' && s.text === 'Oui, de 9 h à 13 h.') ? true : undefined),
      20_000,
    );

    // The keys page, the settings' secret and the members are not the support's: refused, nothing shown.
    const keys = await page.goto('/keys');
    expect(keys!.status()).toBe(403);
    expect(await page.locator('main').textContent()).toContain('Your role in this account (support) does not allow this');
    expect(await page.locator('main').textContent()).not.toContain('sgw_');
    expect((await page.goto('/settings'))!.status()).toBe(403);
    expect((await page.goto('/members'))!.status()).toBe(403);
    expect((await fromPage(page, '/audit.csv')).status).toBe(403);
    const post = await fromPage(page, '/keys', { name: 'x', mode: 'test', password: PASSWORD });
    expect(post.status).toBe(403);
  });

  it('when a developer makes keys, then a test key is made and a live one refused', async () => {
    const { page: ownerPage } = await owner();
    const { page } = await invite(ownerPage, 'developer', 'dev');

    await page.goto('/keys');
    await page.getByLabel('Name').fill('CI');
    await page.getByLabel('Mode').selectOption('test');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create a key' }).click();
    expect(await page.getByLabel('API key').inputValue()).toMatch(/^sgw_test_/);

    await page.getByLabel('Name').fill('Production');
    await page.getByLabel('Mode').selectOption('live');
    await page.getByLabel('Your password').fill(PASSWORD);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/keys') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create a key' }).click(),
    ]);
    expect(answer.status()).toBe(403);
    expect(await page.locator('.notice.error').textContent()).toContain('test keys only');
    expect(await page.locator('tbody tr').filter({ hasText: 'Production' }).count()).toBe(0);
    // The developer reads the rest but changes none of it.
    expect((await page.goto('/phones'))!.status()).toBe(200);
    expect((await page.goto('/settings'))!.status()).toBe(200);
    expect((await fromPage(page, '/settings/secret', { password: PASSWORD })).status).toBe(403);
  });

  it('when a member is demoted or removed, then the open session loses those rights on its next request; the last owner cannot leave', async () => {
    const { page: ownerPage, email: ownerEmail } = await owner();
    const { page, email } = await invite(ownerPage, 'admin', 'admin');
    await page.goto('/keys');
    await page.getByLabel('Name').fill('Before demotion');
    await page.getByLabel('Mode').selectOption('live');
    await page.getByLabel('Your password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create a key' }).click();
    expect(await page.getByLabel('API key').inputValue()).toMatch(/^sgw_live_/);

    // Demoted to support while the admin's page is open: the next click is refused.
    await ownerPage.goto('/members');
    const row = ownerPage.locator(`tr[data-member="${email}"]`);
    await row.getByRole('combobox').selectOption('support');
    await row.getByRole('button', { name: 'Change the role' }).click();
    await ownerPage.locator('.notice.ok').waitFor();
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/keys') && r.request().method() === 'POST'),
      (async () => {
        await page.getByLabel('Name').fill('After demotion');
        await page.getByLabel('Your password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Create a key' }).click();
      })(),
    ]);
    expect(refused.status()).toBe(403);
    expect((await page.goto('/messages'))!.status()).toBe(200);

    // Removed: the same session is signed out on its next request.
    await ownerPage.goto('/members');
    await ownerPage
      .locator(`tr[data-member="${email}"]`)
      .getByRole('button', { name: `Remove ${email}` })
      .click();
    await ownerPage.locator('.notice.ok').filter({ hasText: 'removed' }).waitFor();
    await page.goto('/messages');
    expect(new URL(page.url()).pathname).toBe('/signin');

    // The last owner cannot step down nor leave.
    await ownerPage.goto('/members');
    const me = ownerPage.locator(`tr[data-member="${ownerEmail}"]`);
    await me.getByRole('combobox').selectOption('admin');
    await me.getByRole('button', { name: 'Change the role' }).click();
    expect(await ownerPage.locator('.notice.error').textContent()).toContain('keeps at least one owner');
    await ownerPage.goto('/profile');
    await ownerPage.getByRole('button', { name: 'Leave the account' }).click();
    expect(await ownerPage.locator('.notice.error').textContent()).toContain('keeps at least one owner');
    expect((await ownerPage.goto('/keys'))!.status()).toBe(200);

    // The audit log has each action with its actor, in order (the CSV, oldest last).
    const csv = (await fromPage(ownerPage, '/audit.csv')).text;
    const rows = csv
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(','))
      .reverse()
      .map(([, actor, address, action, target]) => ({ actor, address, action, target }));
    const about = (r: { action?: string; target?: string }) =>
      r.target === email || r.action === 'key.created' || r.action === 'user.signed_in';
    expect(rows.filter((r) => r.actor === email || about(r)).map((r) => `${r.action} by ${r.actor}`)).toEqual([
      `key.created by ${ownerEmail}`,
      `key.created by ${ownerEmail}`,
      `user.signed_in by ${ownerEmail}`,
      `member.invited by ${ownerEmail}`,
      `member.joined by ${email}`,
      `key.created by ${email}`,
      `member.role_changed by ${ownerEmail}`,
      `member.removed by ${ownerEmail}`,
    ]);
    // Where each came from, as the dashboard saw it.
    expect(rows.find((r) => r.action === 'member.invited')!.address).toMatch(/127\.0\.0\.1|::1/);
  });
});
