import { createHash, createHmac, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT, startMailCatcher, type CaughtMail, type MailCatcher } from '@smsgw/stack';
import { AgentProcess } from './support/agent';
import { eventually } from './support/http';
import { Receiver } from './support/receiver';
import { TestSystem, type DemoClient } from './support/system';

/** Where the screenshots of every page go (named in docs/contributors/testing.md). */
const SHOTS = path.join(REPO_ROOT, '.stack/screenshots');
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

describe('the dashboard in a real browser', () => {
  let system: TestSystem;
  let browser: Browser;
  let receiver: Receiver;
  let mail: MailCatcher;
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    fs.rmSync(SHOTS, { recursive: true, force: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    mail = await startMailCatcher();
    // Every sign-up of this file comes from 127.0.0.1: more than the 5 an hour an address gets.
    system = await TestSystem.start({ SMTP_URL: mail.url, DASHBOARD_SIGNUP_MAX_PER_ADDRESS: '20' });
    receiver = await Receiver.start(system.stack.certs);
    // The stack's certificate is made by a local CA the browser does not know: trust that one certificate (its key's SPKI hash), nothing else.
    const spki = new X509Certificate(system.stack.certs.certPem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all(agents.map((a) => a.kill()));
    await receiver?.stop();
    await system?.stop();
    await mail?.stop();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: WIDTHS.desktop, baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    return { context, page };
  }

  /** Screenshots of the current page at desktop and phone widths. */
  async function shoot(page: Page, name: string): Promise<void> {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDTHS.desktop);
  }

  /**
   * A new account from the sign-up page; its address confirmed with the link mailed to it (live
   * keys, phones and endpoints wait for it), unless `confirm` is false. The page is back on /keys.
   */
  async function signUp(page: Page, email: string, password: string, { confirm = true } = {}): Promise<string> {
    await page.goto('/signup');
    await shoot(page, '01-signup');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Company or project name').fill('Acme');
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.waitForURL('**/keys?welcome=1');
    const clientId = (await page.locator('header .who code').textContent())!.trim();
    expect(clientId).toMatch(/^client_\d+$/);
    if (confirm) {
      const verification = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Confirm'));
      await page.goto(linkIn(verification, '/verify-email'));
      await page.getByRole('button', { name: 'Confirm the address' }).click();
      await page.locator('.notice.ok').waitFor();
      await page.goto('/keys');
    }
    return clientId;
  }

  it('when a new user signs up, makes a key, adds and pairs a phone, sends an SMS and sets up a webhook, then every step shows in the pages; a revoked key is refused', async () => {
    const { page } = await newPage();
    const email = `owner${Date.now()}@example.com`;
    const clientId = await signUp(page, email, 'correct horse battery');

    // An API key, shown once, that the public API accepts.
    await page.getByLabel('Name').fill('Server');
    await page.getByLabel('Your password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const apiKey = await page.getByLabel('API key').inputValue();
    expect(apiKey).toMatch(/^sgw_live_/);
    await shoot(page, '02-keys');
    const client: DemoClient = { client_id: clientId, live_api_key: apiKey, test_api_key: '', signing_secret: '' };

    // A phone: the QR code's payload is the pairing URL, which the agent takes as is.
    await page.getByRole('link', { name: 'Phones' }).click();
    await page.getByLabel('Name').fill('Pixel 8');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const pairingUrl = (await page.locator('figure.qr').getAttribute('data-qr-payload'))!;
    expect(pairingUrl).toContain('/v1/agent/pair?code=');
    expect(await page.locator('figure.qr svg').count()).toBe(1);
    expect(await page.getByLabel('Device password').inputValue()).toMatch(/^[A-Z0-9]{4}-/);
    await shoot(page, '03-phone-added');
    await page.goto('/phones');
    const row = page.locator('tr[data-device]');
    await expect(row.locator('[data-state]').textContent()).resolves.toBe('offline');
    const deviceId = (await row.getAttribute('data-device'))!;

    const agent = new AgentProcess(
      [
        path.join(REPO_ROOT, 'android-agent/dist/cli.js'),
        ...['--driver', 'simulator', '--hub', system.stack.hubUrl, '--ca', system.stack.certs.caCertFile, '--pairing-url', pairingUrl],
        ...['--data-dir', path.join(system.stack.logDir, 'dashboard-agent'), '--log-json', '--sim-delivery-delay-ms', '100'],
      ],
      path.join(system.stack.logDir, 'dashboard-agent.log'),
    ).start();
    agents.push(agent);
    // The state turns online without a reload (server push).
    await page.locator(`tr[data-device="${deviceId}"] [data-state]`).filter({ hasText: 'online' }).waitFor({ timeout: 20_000 });
    await shoot(page, '04-phones');

    // An SMS through the public API with the new key, found delivered in the history, the timeline and the chart.
    const sent = await system.api('/v1/sms/send', client, {
      headers: { 'X-Device-ID': deviceId },
      body: { to: '+33612345678', message: 'Bonjour depuis le tableau de bord' },
    });
    expect(sent.status).toBe(200);
    const messageId = String(sent.body.message_id);
    await system.waitForStatus(client, messageId, 'delivered');
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('link', { name: 'Bonjour depuis le tableau de bord' }).waitFor();
    expect(await page.locator('tbody tr').first().locator('.status').textContent()).toBe('delivered');
    await shoot(page, '05-messages');
    await page.getByRole('link', { name: 'Bonjour depuis le tableau de bord' }).click();
    await page.waitForURL(`**/messages/${messageId}`);
    const steps = await page.locator('.timeline li strong').allTextContents();
    expect(steps).toEqual(['Queued', 'Sent', 'Delivered']);
    await shoot(page, '06-message');
    await page.getByRole('link', { name: 'Statistics' }).click();
    expect(await page.locator('[data-stat="sent"]').textContent()).toBe('1');
    expect(await page.locator('[data-stat="delivered"]').textContent()).toBe('1');
    expect(await page.locator('[data-stat="rate"]').textContent()).toBe('100.00 %');
    expect(await page.locator('svg.chart rect.bar.delivered title').allTextContents()).toContain(
      `${new Date().toISOString().slice(0, 10)}: 1 delivered`,
    );
    await shoot(page, '07-stats');

    // A global webhook; its test event reaches a receiver started by this test.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('HTTPS URL').fill(receiver.url('/dashboard-hook'));
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    const secret = await page.getByLabel('Endpoint secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shoot(page, '08-webhooks');
    await page.getByLabel('Kind of test event').selectOption('sms.delivered');
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const [hook] = await receiver.waitFor('/dashboard-hook', 1);
    expect(hook!.body.event).toBe('sms.delivered');
    await page.waitForURL('**/webhooks/whe_*');
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('.attempts li').count()) > 0 ? true : undefined;
      },
      10_000,
      'the delivery in the log',
    );
    expect(await page.locator('.attempts li').first().textContent()).toContain('HTTP 200');
    await shoot(page, '09-delivery-log');
    await page.getByRole('button', { name: 'Replay' }).first().click();
    await receiver.waitFor('/dashboard-hook', 2);

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Your password, to show it').fill('correct horse battery');
    await page.getByRole('button', { name: 'Show the signing secret' }).click();
    expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
    await shoot(page, '10-settings');
    await page.getByRole('link', { name: 'Overview' }).click();
    await shoot(page, '11-overview');

    // Revoking the key: the API refuses it within 5 s.
    await page.getByRole('link', { name: 'API keys' }).click();
    page.once('dialog', (d) => void d.accept());
    await page.locator('tr', { hasText: 'Server' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('tr', { hasText: 'Server' }).getByText('revoked').waitFor();
    const revokedAt = Date.now();
    await eventually(
      async () => {
        const res = await system.api('/v1/auth/test', client, { headers: { 'X-Device-ID': deviceId } });
        return res.status === 401 ? true : undefined;
      },
      8000,
      'the revoked key refused',
    );
    expect(Date.now() - revokedAt).toBeLessThan(5500);
  });

  it("when a second account changes ids in URLs or forms, then it never sees or changes the first account's data", async () => {
    const first = await newPage();
    await signUp(first.page, `first${Date.now()}@example.com`, 'first account password');
    await first.page.goto('/phones');
    await first.page.getByLabel('Name').fill('Private phone');
    await first.page.getByRole('button', { name: 'Add a phone' }).click();
    await first.page.goto('/phones');
    const deviceId = (await first.page.locator('tr[data-device]').getAttribute('data-device'))!;
    await first.page.goto('/webhooks');
    await first.page.getByLabel('HTTPS URL').fill(receiver.url('/private-hook'));
    await first.page.getByRole('button', { name: 'Add the endpoint' }).click();
    await first.page.goto('/webhooks');
    const endpointId = (await first.page.locator('tr[data-endpoint]').getAttribute('data-endpoint'))!;
    await first.page.goto('/keys');
    const keyForm = first.page.locator('form[action$="/revoke"]').first();
    const keyAction = (await keyForm.getAttribute('action'))!;

    const second = await newPage();
    await signUp(second.page, `second${Date.now()}@example.com`, 'second account password');
    for (const url of [`/webhooks/${endpointId}`, `/messages/msg_01K0000000000000000000000`]) {
      const res = await second.page.goto(url);
      expect(res!.status()).toBe(404);
      expect(await second.page.content()).not.toContain('private-hook');
    }
    await second.page.goto('/phones');
    expect(await second.page.locator('tr[data-device]').count()).toBe(0);
    // Forms aimed at the first account's things, with the second account's valid CSRF token.
    const csrf = await second.page.locator('input[name=_csrf]').first().inputValue();
    /** A form posted from the second account's page (its cookies); a followed redirect would mean it worked (status 0 here). */
    const post = (action: string, form: Record<string, string>) =>
      second.page.evaluate(
        async ({ action, form }) => (await fetch(action, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' })).status,
        { action, form },
      );
    for (const action of [
      `/phones/${deviceId}/remove`,
      `/phones/${deviceId}/rename`,
      `/webhooks/${endpointId}/delete`,
      `/webhooks/${endpointId}/test`,
      `/webhooks/${endpointId}/batch`,
      keyAction,
    ]) {
      expect([action, await post(action, { _csrf: csrf, name: 'stolen', event: 'sms.sent' })]).toEqual([action, 404]);
    }
    // A form without the session's token is refused.
    expect(await post('/keys', { name: 'x', mode: 'live' })).toBe(403);
    // Nothing of the first account changed.
    await first.page.goto('/phones');
    expect(await first.page.locator(`tr[data-device="${deviceId}"] input[name=name]`).inputValue()).toBe('Private phone');
    await first.page.goto('/webhooks');
    expect(await first.page.locator('tr[data-endpoint]').count()).toBe(1);
    await first.page.goto('/keys');
    expect(await first.page.getByText('revoked').count()).toBe(0);
    expect(receiver.at('/private-hook')).toEqual([]);
    // Signed out, the pages send to the sign-in.
    await second.page.getByRole('button', { name: 'Sign out' }).click();
    await second.page.goto('/phones');
    expect(second.page.url()).toContain('/signin');
  });

  it('when an owner turns batching on for an endpoint, then its events come as a signed JSON array of envelopes, and turned off, one event a POST again', async () => {
    const { page } = await newPage();
    await signUp(page, `batches${Date.now()}@example.com`, 'batches account password');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('HTTPS URL').fill(receiver.url('/dashboard-batches'));
    await page.getByRole('button', { name: 'Add the endpoint' }).click();
    const secret = await page.getByLabel('Endpoint secret').inputValue();
    await page.goto('/webhooks');
    const row = page.locator('tr[data-endpoint]');
    expect(await row.locator('[data-form]').textContent()).toBe('one event a POST');

    await row.getByRole('button', { name: 'Send in batches' }).click();
    await page.waitForURL('**/webhooks');
    expect(await row.locator('[data-form]').textContent()).toBe('batches of up to 100');
    await row.getByLabel('Kind of test event').selectOption('sms.sent');
    await row.getByRole('button', { name: 'Send a test event' }).click();
    const [batch] = await receiver.waitFor('/dashboard-batches', 1);

    const sent = JSON.parse(batch!.raw) as { event: string; event_id: string }[];
    expect(Array.isArray(sent)).toBe(true);
    expect(sent.map((e) => e.event)).toEqual(['sms.sent']);
    expect(batch!.headers['x-webhook-batch-size']).toBe('1');
    expect(batch!.headers['x-webhook-signature']).toBe(createHmac('sha256', secret).update(batch!.raw).digest('hex'));
    await page.waitForURL('**/webhooks/whe_*');
    expect(await page.locator('main').textContent()).toContain('in batches');

    await page.goto('/webhooks');
    await row.getByRole('button', { name: 'Send one event a POST' }).click();
    await page.waitForURL('**/webhooks');
    expect(await row.locator('[data-form]').textContent()).toBe('one event a POST');
    await row.getByRole('button', { name: 'Send a test event' }).click();
    const [, single] = await receiver.waitFor('/dashboard-batches', 2);
    expect(JSON.parse(single!.raw)).toMatchObject({ event: 'sms.sent', event_id: expect.stringMatching(/^evt_/) });
  });

  it('when a signed-in owner reveals the signing secret, creates a key or changes the alert address with a wrong password, then the form comes back with a clear message and nothing changes', async () => {
    const { page } = await newPage();
    const email = `reauth${Date.now()}@example.com`;
    await signUp(page, email, 'the owner password');
    const wrong = 'Your password is wrong: nothing was changed. Type the password you sign in with.';

    await page.goto('/keys');
    const keysBefore = await page.locator('tbody tr').count();
    await page.getByLabel('Name').fill('Stolen session key');
    await page.getByLabel('Your password').fill('not the password');
    await page.getByRole('button', { name: 'Create a key' }).click();
    expect(await page.locator('.notice.error').textContent()).toBe(wrong);
    expect(await page.getByLabel('API key').count()).toBe(0);
    expect(await page.locator('tbody tr').count()).toBe(keysBefore);
    expect(await page.getByLabel('Name').inputValue()).toBe('Stolen session key');

    await page.goto('/settings');
    await page.getByLabel('Your password, to show it').fill('not the password');
    await page.getByRole('button', { name: 'Show the signing secret' }).click();
    expect(await page.locator('.notice.error').textContent()).toBe(wrong);
    expect(await page.getByLabel('Signing secret').count()).toBe(0);

    await page.getByLabel(/^Address that receives alerts/).fill('attacker@example.net');
    await page.getByLabel('Your password, to change it').fill('not the password');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.locator('.notice.error').textContent()).toBe(wrong);
    await page.goto('/settings');
    expect(await page.getByLabel(/^Address that receives alerts/).inputValue()).toBe(email);

    // With the right password, each goes through.
    await page.getByLabel(/^Address that receives alerts/).fill(`new-${email}`);
    await page.getByLabel('Your password, to change it').fill('the owner password');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await page.locator('.notice.ok').textContent()).toBe(
      'Alert e-mails go to the new address once you confirm it: open the link we e-mailed there.',
    );
    expect(await page.locator('.notice.warn').textContent()).toContain(`Alert e-mails are not sent until you confirm new-${email}`);
    await page.getByLabel('Your password, to show it').fill('the owner password');
    await page.getByRole('button', { name: 'Show the signing secret' }).click();
    expect(await page.getByLabel('Signing secret').inputValue()).toMatch(/^whsec_/);
  });

  /** The link of a mail (its quoted-printable soft breaks undone). */
  function linkIn(m: CaughtMail, route: string): string {
    const text = m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    return new RegExp(`https://[^\\s]+${route}\\?token=[A-Za-z0-9_-]+`).exec(text)![0];
  }

  it('when an owner signs up, then the address is confirmed with the mailed link; when the password is forgotten, then the mailed link sets a new one once and signs every session out', async () => {
    const { page } = await newPage();
    const email = `forgot${Date.now()}@example.com`;
    await signUp(page, email, 'the first password', { confirm: false });
    await page.goto('/settings');
    expect(await page.locator('.notice.warn').textContent()).toContain(`Alert e-mails are not sent until you confirm ${email}`);
    const verification = await mail.waitFor((m) => m.to.includes(email) && m.subject.startsWith('Confirm'));
    await page.goto(linkIn(verification, '/verify-email'));
    await page.getByRole('button', { name: 'Confirm the address' }).click();
    expect(await page.locator('.notice.ok').textContent()).toContain('Your address is confirmed');
    await page.goto('/settings');
    expect(await page.locator('.notice.warn').count()).toBe(0);

    const other = await newPage();
    await other.page.goto('/signin');
    await other.page.getByRole('link', { name: 'Forgot password?' }).click();
    await other.page.getByLabel('E-mail').fill(email);
    await other.page.getByRole('button', { name: 'Send me a link' }).click();
    expect(await other.page.locator('.notice.ok').textContent()).toContain('If an account uses this address');
    const reset = await mail.waitFor((m) => m.to.includes(email) && m.subject === 'Reset your SMS Gateway password');
    const link = linkIn(reset, '/reset-password');
    await other.page.goto(link);
    await other.page.getByLabel(/^New password/).fill('the second password');
    await other.page.getByRole('button', { name: 'Set the new password' }).click();
    await other.page.waitForURL('**/signin?reset=1');
    await shoot(other.page, '13-password-reset');

    // The session opened before the reset is over.
    await page.goto('/settings');
    await page.waitForURL('**/signin?next=**');
    await other.page.getByLabel('E-mail').fill(email);
    await other.page.getByLabel(/^Password/).fill('the second password');
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.waitForURL((url) => url.pathname === '/');

    const again = await newPage();
    await again.page.goto(link);
    await again.page.getByLabel(/^New password/).fill('a third password');
    await again.page.getByRole('button', { name: 'Set the new password' }).click();
    expect(await again.page.locator('.notice.error').textContent()).toContain('This link does not work');
  });

  it('when an owner gives a connected phone a new pairing, then it is disconnected, its old credentials cannot bring it back, and the new pairing connects it', async () => {
    const { page } = await newPage();
    await signUp(page, `rotate${Date.now()}@example.com`, 'the owner password');
    await page.getByRole('link', { name: 'Phones' }).click();
    await page.getByLabel('Name').fill('Old phone');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const firstUrl = (await page.locator('figure.qr').getAttribute('data-qr-payload'))!;
    await page.goto('/phones');
    const deviceId = (await page.locator('tr[data-device]').getAttribute('data-device'))!;
    const startAgent = (pairingUrl: string, dir: string) => {
      const agent = new AgentProcess(
        [
          path.join(REPO_ROOT, 'android-agent/dist/cli.js'),
          ...['--driver', 'simulator', '--hub', system.stack.hubUrl, '--ca', system.stack.certs.caCertFile, '--pairing-url', pairingUrl],
          ...['--data-dir', path.join(system.stack.logDir, dir), '--log-json'],
        ],
        path.join(system.stack.logDir, `${dir}.log`),
      ).start();
      agents.push(agent);
      return agent;
    };
    startAgent(firstUrl, 'rotate-agent-1');
    const state = page.locator(`tr[data-device="${deviceId}"] [data-state]`);
    await state.filter({ hasText: 'online' }).waitFor({ timeout: 20_000 });

    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator(`tr[data-device="${deviceId}"]`).getByRole('button', { name: 'New pairing' }).click();
    expect(await page.locator('.reveal strong').textContent()).toContain('has a new pairing');
    const secondUrl = (await page.locator('figure.qr').getAttribute('data-qr-payload'))!;
    expect(secondUrl).not.toBe(firstUrl);
    await page.goto('/phones');
    await state.filter({ hasText: 'offline' }).waitFor({ timeout: 10_000 });
    // The first agent keeps trying with its old token: it stays refused.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await page.goto('/phones');
    expect(await state.textContent()).toBe('offline');

    startAgent(secondUrl, 'rotate-agent-2');
    await state.filter({ hasText: 'online' }).waitFor({ timeout: 20_000 });
  });

  it("when an owner sets the fleet's settings and a phone's limits and hours, then the services hold them, a wrong value is refused in its field, and the phone's page shows its use", async () => {
    const { page } = await newPage();
    const clientId = await signUp(page, `fleet${Date.now()}@example.com`, 'the owner password');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel(/^Default time to live/).fill('3600');
    await page.getByLabel(/^Failover delay/).fill('120');
    await page.getByLabel('Always the default SIM').check();
    await page.getByLabel(/^Default SIM \(slot 1 to 8/).fill('2');
    await page.getByLabel('Your password, to change them').fill('the owner password');
    await page.getByRole('button', { name: 'Apply the fleet settings' }).click();
    await expect(page.locator('[data-fleet="ttl"]').textContent()).resolves.toContain('1 hour');
    await expect(page.locator('[data-fleet="sim"]').textContent()).resolves.toContain('the default SIM, slot 2');
    expect(await system.cli('set-fleet', '--client', clientId)).toEqual({
      client_id: clientId,
      default_ttl_seconds: 3600,
      failover_delay_seconds: 120,
      sim_rule: 'default',
      default_sim: 2,
    });

    await page.getByRole('link', { name: 'Phones' }).click();
    await page.getByLabel('Name').fill('Shop phone');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    await page.goto('/phones');
    const deviceId = (await page.locator('tr[data-device]').getAttribute('data-device'))!;
    await page.locator(`tr[data-device="${deviceId}"] a[data-limits]`).click();
    await page.waitForURL(`**/phones/${deviceId}`);
    await page.getByLabel('Per minute').fill('5');
    await page.getByLabel('From').fill('08:00');
    await page.getByLabel('Until').fill('20:00');
    await page.getByLabel(/^Time zone/).fill('Mars/Olympus');
    await page.getByRole('button', { name: 'Save the limits' }).click();
    // The hub refuses the unknown zone: shown at the field, nothing stored.
    await expect(page.locator('#l-time_zone').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await system.cli('set-device-limits', '--client', clientId, '--device', deviceId)).toMatchObject({
      limits: { per_minute: 0, sending_hours_start: '' },
    });
    await page.getByLabel(/^Time zone/).fill('Europe/Paris');
    await page.getByRole('button', { name: 'Save the limits' }).click();
    await page.waitForURL('**/phones/*?saved=1');
    expect(await system.cli('set-device-limits', '--client', clientId, '--device', deviceId)).toMatchObject({
      limits: { per_minute: 5, sending_hours_start: '08:00', sending_hours_end: '20:00', time_zone: 'Europe/Paris' },
    });
    expect(await page.locator('#usage tr', { hasText: 'Last minute' }).locator('[data-limit]').textContent()).toContain('5');
    await shoot(page, '12-phone-limits');
  });

  it('when a phone receives an SMS, then the owner sees the conversation in the inbox and answers it through the phone; a STOP puts the number on the Opt-outs page, where the owner removes it', async () => {
    const { page } = await newPage();
    const clientId = await signUp(page, `inbox${Date.now()}@example.com`, 'the owner password');
    await page.getByRole('link', { name: 'Phones' }).click();
    await page.getByLabel('Name').fill('Two-way phone');
    await page.getByRole('button', { name: 'Add a phone' }).click();
    const pairingUrl = (await page.locator('figure.qr').getAttribute('data-qr-payload'))!;
    await page.goto('/phones');
    const deviceId = (await page.locator('tr[data-device]').getAttribute('data-device'))!;
    const agent = new AgentProcess(
      [
        path.join(REPO_ROOT, 'android-agent/dist/cli.js'),
        ...['--driver', 'simulator', '--hub', system.stack.hubUrl, '--ca', system.stack.certs.caCertFile, '--pairing-url', pairingUrl],
        ...['--data-dir', path.join(system.stack.logDir, 'inbox-agent'), '--log-json', '--sim-delivery-delay-ms', '100'],
      ],
      path.join(system.stack.logDir, 'inbox-agent.log'),
    ).start();
    agents.push(agent);
    await page.locator(`tr[data-device="${deviceId}"] [data-state]`).filter({ hasText: 'online' }).waitFor({ timeout: 20_000 });

    await system.cli(
      'receive-sms',
      '--client',
      clientId,
      '--device',
      deviceId,
      '--from',
      '+33699999999',
      '--text',
      'Votre boutique est ouverte ?',
    );
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
    await page.getByLabel('Reply to +33699999999').fill('Oui, de 9 h à 19 h.');
    await page.getByRole('button', { name: 'Send the reply' }).click();
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('li[data-line="out"] .status').textContent()) === 'delivered' ? true : undefined;
      },
      20_000,
      'the reply delivered',
    );
    expect(await page.locator('li[data-line] .text').allTextContents()).toEqual(['Votre boutique est ouverte ?', 'Oui, de 9 h à 19 h.']);
    expect(agent.sent.filter((s) => s.to === '+33699999999' && s.text === 'Oui, de 9 h à 19 h.')).toHaveLength(1);
    await shoot(page, '13-conversation');

    await system.cli('receive-sms', '--client', clientId, '--device', deviceId, '--from', '+33699999999', '--text', 'STOP');
    await page.getByRole('link', { name: 'Opt-outs' }).click();
    await eventually(
      async () => {
        await page.reload();
        return (await page.locator('tr[data-opt-out="+33699999999"]').count()) === 1 ? true : undefined;
      },
      15_000,
      'the number on the list',
    );
    expect(await page.locator('tr[data-opt-out="+33699999999"]').textContent()).toContain('STOP');
    await shoot(page, '14-opt-outs');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('tr[data-opt-out="+33699999999"]').getByRole('button', { name: 'Remove' }).click();
    await page.locator('[data-empty]').waitFor();
  });

  it('when someone keeps guessing a password, then sign-in is refused with a clear message after 10 failures, even with the right password', async () => {
    const { page } = await newPage();
    const email = `guessed${Date.now()}@example.com`;
    await signUp(page, email, 'the right password');
    await page.getByRole('button', { name: 'Sign out' }).click();
    const attempt = async (password: string) => {
      await page.goto('/signin');
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel(/^Password/).fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      return (
        (await page
          .locator('.notice.error')
          .textContent()
          .catch(() => null)) ?? 'signed in'
      );
    };
    for (let i = 0; i < 10; i++) expect(await attempt(`wrong guess ${i}`)).toBe('Wrong e-mail or password.');
    await shoot(page, '12-signin');
    expect(await attempt('the right password')).toContain('Too many failed sign-ins');
    expect(page.url()).toContain('/signin');
  });
});
