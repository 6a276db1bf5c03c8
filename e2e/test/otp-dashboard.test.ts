import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '@smsgw/stack';
import { TestSystem, type DemoClient } from './support/system';

/** Where the screenshots of every page go (docs/contributors/testing.md). */
const SHOTS = path.join(REPO_ROOT, '.stack/screenshots');
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

/**
 * The dashboard's parts of issue 39 in Debian's Chromium: the destinations on the settings page,
 * and the One-time passwords page (statistics and chart, the pumping guard's settings, a hold
 * released with its button), each checked against what the API then does.
 */
describe('destinations and the One-time passwords page in a real browser', () => {
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

  async function shoot(page: Page, name: string): Promise<void> {
    for (const [label, size] of Object.entries(WIDTHS)) {
      await page.setViewportSize(size);
      await page.screenshot({ path: path.join(SHOTS, `${name}-${label}.png`), fullPage: true });
    }
    await page.setViewportSize(WIDTHS.desktop);
  }

  async function signedIn(): Promise<{ page: Page; client: DemoClient; deviceId: string }> {
    const email = `otp${Date.now()}@example.com`;
    const password = 'correct horse battery';
    const client = await system.admin.createUser(email, password, 'Boutique');
    const { device_id: deviceId } = await system.createDevice(client.client_id);
    const context = await browser.newContext({ viewport: WIDTHS.desktop, baseURL: system.stack.dashboardUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto('/signin');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel(/^Password/).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    return { page, client, deviceId };
  }

  const otp = (client: DemoClient, deviceId: string, to: string) =>
    system.api('/v1/sms/send-otp', client, { headers: { 'X-Device-ID': deviceId }, body: { to } }, 'test');

  it('when the owner limits the countries of OTPs on the settings page, then the page shows them, the API refuses another country, and an unknown code is refused on its field', async () => {
    const { page, client, deviceId } = await signedIn();
    await page.goto('/settings');
    expect(await page.locator('[data-now="otp_countries"]').textContent()).toBe('every country');
    await page.getByLabel(/^Countries of one-time passwords/).fill('fr, be');
    await page.getByLabel('Allow toll-free numbers').check();
    await page.getByRole('button', { name: 'Apply the destinations' }).click();
    expect(await page.locator('.notice.ok').textContent()).toContain('The destinations are saved');
    expect(await page.locator('[data-now="otp_countries"]').textContent()).toBe('BE, FR');
    expect(await page.locator('[data-now="sms_countries"]').textContent()).toBe('every country');
    await shoot(page, '20-settings-destinations');

    await new Promise((r) => setTimeout(r, 5500));
    const refused = await otp(client, deviceId, '+14155550100');
    expect([refused.status, (refused.body.error as { code: string }).code]).toEqual([403, 'DESTINATION_NOT_ALLOWED']);
    expect((await otp(client, deviceId, '+33800123456')).status).toBe(200);

    await page.getByLabel(/^Countries of messages/).fill('FR, XX');
    await page.getByRole('button', { name: 'Apply the destinations' }).click();
    expect(await page.locator('.notice.error').textContent()).toContain('Pays inconnus : XX');
    expect(await page.getByLabel(/^Countries of messages/).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel(/^Countries of messages/).inputValue()).toBe('FR, XX');
    expect(await page.locator('[data-now="sms_countries"]').textContent()).toBe('every country');
  }, 60_000);

  it('when codes are sent and verified, then the OTP page shows the figures, a chart of sent and verified codes and the countries; a hold the guard made is released with its button', async () => {
    const { page, client, deviceId } = await signedIn();
    const sent = [
      await otp(client, deviceId, '+33612400001'),
      await otp(client, deviceId, '+33612400002'),
      await otp(client, deviceId, '+32470124000'),
    ];
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
    await system.api('/v1/sms/verify-otp', client, { body: { otp_id: sent[0]!.body.otp_id, code: '123456' } }, 'test');

    await page.getByRole('link', { name: 'One-time passwords' }).click();
    await page.getByRole('link', { name: 'test' }).click();
    expect(await page.locator('[data-stat="sent"]').textContent()).toBe('3');
    expect(await page.locator('[data-stat="verified"]').textContent()).toBe('1');
    expect(await page.locator('[data-stat="conversion"]').textContent()).toBe('33.33 %');
    expect(await page.locator('svg.chart rect.bar.sent').count()).toBe(1);
    expect(await page.locator('svg.chart rect.bar.verified').count()).toBe(1);
    expect(await page.locator('#otp-countries tr[data-country="FR"] td').allTextContents()).toEqual(['FR', '2', '1', '50.00 %']);
    expect(await page.locator('#holds [data-empty]').count()).toBe(1);

    // Stricter thresholds, saved from the page: 3 unverified codes to one prefix are enough.
    await page.getByLabel(/^A prefix is held from/).fill('3');
    await page
      .getByLabel(/^when fewer than this percent/)
      .first()
      .fill('50');
    await page.getByRole('button', { name: 'Save the guard' }).click();
    expect(await page.locator('.notice.ok').textContent()).toContain('The guard is saved');
    expect(await page.locator('#guard p').first().textContent()).toContain('asked for 3 codes or more');
    await page.getByLabel(/^Window, in minutes/).fill('1');
    await page.getByRole('button', { name: 'Save the guard' }).click();
    expect(await page.locator('.notice.error').textContent()).toContain('out of its bounds');
    expect(await page.getByLabel(/^Window, in minutes/).getAttribute('aria-invalid')).toBe('true');

    // The otp service uses a client's new settings at once (other replicas within 10 s).
    for (const to of ['+33613501001', '+33613501002', '+33613501003']) expect((await otp(client, deviceId, to)).status).toBe(200);
    const held = await otp(client, deviceId, '+33613501004');
    expect([held.status, (held.body.error as { code: string }).code]).toEqual([429, 'OTP_FRAUD_SUSPECTED']);

    await page.goto('/otp?mode=test');
    const row = page.locator('#otp-holds tr[data-active="true"]');
    expect(await row.locator('code').textContent()).toBe('+3361350');
    await shoot(page, '21-otp-page');
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Release' }).click();
    expect(await page.locator('.notice.ok').textContent()).toContain('The hold is released');
    expect(await page.locator('#otp-holds tr[data-active="true"]').count()).toBe(0);
    expect((await otp(client, deviceId, '+33613501004')).status).toBe(200);
  }, 90_000);
});
