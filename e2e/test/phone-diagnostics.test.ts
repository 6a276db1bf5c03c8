import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from '@smsgw/stack';
import { eventually } from './support/http';
import { TestSystem } from './support/system';

const SHOTS = path.join(REPO_ROOT, '.stack/screenshots');

/**
 * Issue 38's remote diagnostics in Debian's Chromium: the owner asks a connected simulated phone
 * for its log from its page (frame `log_request`, protocol 6) and reads it there, with the phone
 * numbers and message texts masked by the phone.
 */
describe("a phone's log asked for from the dashboard, in a real browser", () => {
  let system: TestSystem;
  let browser: Browser;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    system = await TestSystem.shared();
    const spki = new X509Certificate(system.stack.certs.certPem).publicKey.export({ type: 'spki', format: 'der' });
    const pin = createHash('sha256').update(spki).digest('base64');
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${pin}`],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  it('when the owner asks a connected phone for its log, then the page shows its recent lines with numbers and texts masked', async () => {
    const email = `diag${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const client = await system.admin.createUser(email, password, 'Boutique');
    const device = await system.createDevice(client.client_id, 'diagnosed phone');
    await system.startAgent(client, device);
    // Something worth a log line: an SMS received from a number, with a text.
    await system.cli(
      'receive-sms',
      '--client',
      client.client_id,
      '--device',
      device.device_id,
      '--from',
      '+33612345678',
      '--text',
      'Mon code 9876',
    );
    const sent = await system.api('/v1/sms/send', client, { body: { to: '+33698765432', message: 'Bonjour Alice' } });
    expect(sent.status).toBe(200);
    const messageId = String(sent.body.message_id);
    await system.waitForStatus(client, messageId, 'delivered');

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');

    await page.goto(`/phones/${device.device_id}`);
    await page.getByRole('button', { name: 'Ask the phone for its log' }).click();
    await page.waitForURL((url) => url.searchParams.get('log') === 'asked');
    const log = await eventually(
      async () => {
        await page.reload();
        const pre = page.locator('#phone-log');
        return (await pre.count()) > 0 ? pre.innerText() : undefined;
      },
      20_000,
      "the phone's log on its page",
      500,
    );
    expect(log).toContain('SMS accepted');
    expect(log).toContain(messageId);
    expect(log).toMatch(/SMS received .*from=\[redacted\]/);
    expect(log).toContain('the hub asked for the log');
    for (const secret of ['+33612345678', '612345678', '+33698765432', 'Mon code', 'Bonjour Alice', '9876'])
      expect(log).not.toContain(secret);
    await page.screenshot({ path: path.join(SHOTS, 'phone-log-desktop.png'), fullPage: true });
  }, 90_000);
});
